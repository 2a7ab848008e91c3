// RandomPipeline: JIT-side construction and running (see RandomPipeline.h).
#include "random_pipelines/RandomPipeline.h"

#include "random_pipelines/Builder.h"
#include "random_pipelines/Planner.h"
#include "support/Rng.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace sextant {
namespace random_pipelines {

RandomPipeline make_random_pipeline(uint64_t seed, const RandomPipelineOptions &options) {
    return make_random_pipeline_from_spec(plan_random_pipeline(seed, options));
}

RandomPipeline make_random_pipeline_from_spec(const PipelineSpec &spec) {
    RandomPipeline rp;
    rp.spec = spec;
    rp.structural_hash = structural_hash(spec);
    std::vector<Halide::Func> in_funcs;
    for (const InputSpec &in : spec.inputs) {
        Halide::ImageParam p(halide_type(in.type), int(in.extents.size()), in.name);
        Halide::Region est;
        for (int e : in.extents)
            est.emplace_back(0, e);
        p.set_estimates(est);
        rp.inputs.push_back(p);
        in_funcs.push_back(p);
    }
    std::vector<Halide::Expr> scalars;
    for (const ScalarSpec &s : spec.scalars) {
        Halide::Param<> p(halide_type(s.type), s.name);
        // Param<void>::set_estimate rejects every value in Halide 14; go to the Parameter.
        if (s.type == ElemType::Int32) {
            p.parameter().set_estimate(Halide::Expr(int32_t(s.value)));
        } else {
            p.parameter().set_estimate(Halide::Expr(float(s.value)));
        }
        rp.scalar_params.push_back(p);
        rp.scalar_values.push_back(s.value);
        scalars.push_back(p);
    }
    rp.outputs = build_pipeline_funcs(spec, in_funcs, scalars);
    for (size_t o = 0; o < rp.outputs.size(); o++) {
        Halide::Region est;
        for (int e : spec.stages[size_t(spec.outputs[o])].extents)
            est.emplace_back(0, e);
        rp.outputs[o].set_estimates(est);
    }
    rp.pipeline = Halide::Pipeline(rp.outputs);
    for (size_t i = 0; i < spec.stages.size(); i++) {
        const StageSpec &s = spec.stages[i];
        StageInfo info;
        info.name = s.name;
        info.kind = kind_name(s.kind);
        info.type = type_name(s.type);
        info.tuple_size = s.tuple_size;
        info.extents = s.extents;
        for (int p : s.producers)
            info.producers.push_back(spec.stages[size_t(p)].name);
        for (int c : consumers_of(spec, int(i)))
            info.consumers.push_back(spec.stages[size_t(c)].name);
        info.is_output =
            std::find(spec.outputs.begin(), spec.outputs.end(), int(i)) != spec.outputs.end();
        rp.stages.push_back(info);
    }
    return rp;
}

namespace {

template <typename T> void fill_pattern(Halide::Buffer<> &buf, uint64_t key, double lo, double hi) {
    Halide::Buffer<T> b(buf);
    T *data = b.data();
    size_t n = b.number_of_elements();
    bool integral = !std::is_floating_point<T>::value;
    double span = hi - lo;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = mix64(key + i);
        if (integral) {
            data[i] = T(lo + double(h % uint64_t(span + 1)));
        } else {
            // Multiples of 1/256: exact in float, so fills match across platforms.
            data[i] = T(lo + double(h % (uint64_t(span) * 256 + 1)) / 256.0);
        }
    }
}

} // namespace

Halide::Buffer<> make_input_buffer(const PipelineSpec &spec, int i) {
    const InputSpec &in = spec.inputs[size_t(i)];
    Halide::Buffer<> buf(halide_type(in.type), in.extents);
    uint64_t key = mix64(spec.seed * 0x100000001b3ull + uint64_t(i) + 1);
    switch (in.type) {
    case ElemType::UInt8:
        fill_pattern<uint8_t>(buf, key, in.lo, in.hi);
        break;
    case ElemType::UInt16:
        fill_pattern<uint16_t>(buf, key, in.lo, in.hi);
        break;
    case ElemType::Int16:
        fill_pattern<int16_t>(buf, key, in.lo, in.hi);
        break;
    case ElemType::Int32:
        fill_pattern<int32_t>(buf, key, in.lo, in.hi);
        break;
    case ElemType::Float32:
        fill_pattern<float>(buf, key, in.lo, in.hi);
        break;
    case ElemType::Float64:
        fill_pattern<double>(buf, key, in.lo, in.hi);
        break;
    }
    return buf;
}

std::vector<Halide::Buffer<>> make_output_buffers(const RandomPipeline &rp) {
    std::vector<Halide::Buffer<>> outs;
    for (int o : rp.spec.outputs) {
        const StageSpec &s = rp.spec.stages[size_t(o)];
        outs.emplace_back(halide_type(s.type), s.extents);
    }
    return outs;
}

std::vector<Halide::Buffer<>> run_random_pipeline(const RandomPipeline &rp,
                                                  const Halide::Target &target, RunTimings *timings,
                                                  int repeats) {
    using Clock = std::chrono::steady_clock;
    for (size_t i = 0; i < rp.inputs.size(); i++) {
        Halide::ImageParam p = rp.inputs[i];
        p.set(make_input_buffer(rp.spec, int(i)));
    }
    for (size_t i = 0; i < rp.scalar_params.size(); i++) {
        Halide::Param<> p = rp.scalar_params[i];
        if (rp.spec.scalars[i].type == ElemType::Int32) {
            p.set(int32_t(rp.scalar_values[i]));
        } else {
            p.set(float(rp.scalar_values[i]));
        }
    }
    Halide::Pipeline pipeline = rp.pipeline;
    auto t0 = Clock::now();
    pipeline.compile_jit(target);
    auto t1 = Clock::now();
    std::vector<Halide::Buffer<>> outs;
    double best = 1e300;
    for (int r = 0; r < std::max(1, repeats); r++) {
        outs = make_output_buffers(rp);
        Halide::Realization real(outs);
        auto a = Clock::now();
        pipeline.realize(real, target);
        auto b = Clock::now();
        best = std::min(best, std::chrono::duration<double, std::milli>(b - a).count());
    }
    if (timings) {
        timings->compile_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        timings->run_ms = best;
    }
    return outs;
}

Halide::Target default_run_target() {
    return Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids);
}

uint64_t buffer_checksum(const Halide::Buffer<> &b) {
    uint64_t h = 0xcbf29ce484222325ull;
    auto add = [&](uint64_t v) {
        h ^= v;
        h = mix64(h);
    };
    add(uint64_t(b.type().code()));
    add(uint64_t(b.type().bits()));
    add(uint64_t(b.dimensions()));
    for (int d = 0; d < b.dimensions(); d++) {
        add(uint64_t(int64_t(b.dim(d).min())));
        add(uint64_t(int64_t(b.dim(d).extent())));
    }
    size_t elem = size_t(b.type().bytes());
    Halide::Buffer<> copy = b.copy(); // dense, in order
    const uint8_t *p = static_cast<const uint8_t *>(copy.data());
    size_t n = copy.number_of_elements() * elem;
    uint64_t word = 0;
    for (size_t i = 0; i < n; i++) {
        word = (word << 8) | p[i];
        if ((i & 7) == 7) {
            add(word);
            word = 0;
        }
    }
    add(word);
    return h;
}

} // namespace random_pipelines
} // namespace sextant
