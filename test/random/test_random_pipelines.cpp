// Tests for random_pipelines/: determinism, validity (compile + run with the default
// schedule), estimates, value ranges, hand-checked values and stage-kind coverage.
#include "random_pipelines/Planner.h"
#include "random_pipelines/RandomPipeline.h"
#include "support/Rng.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <set>

using namespace sextant::random_pipelines;

namespace {

/** Smaller pipelines for the JIT tests (keeps 200 compiles within CI time). */
RandomPipelineOptions test_options() {
    RandomPipelineOptions o;
    o.max_stages = 10;
    o.max_extent = 512;
    o.max_input_points = int64_t(1) << 17;
    o.max_work = 4e6;
    return o;
}

template <typename T> bool all_in_range(const Halide::Buffer<> &b, double lo, double hi) {
    Halide::Buffer<T> t(b);
    bool ok = true;
    t.for_each_value(
        [&](T v) { ok &= std::isfinite(double(v)) && double(v) >= lo && double(v) <= hi; });
    return ok;
}

bool buffer_in_range(const Halide::Buffer<> &b, ElemType type, double lo, double hi) {
    switch (type) {
    case ElemType::UInt8:
        return all_in_range<uint8_t>(b, lo, hi);
    case ElemType::UInt16:
        return all_in_range<uint16_t>(b, lo, hi);
    case ElemType::Int16:
        return all_in_range<int16_t>(b, lo, hi);
    case ElemType::Int32:
        return all_in_range<int32_t>(b, lo, hi);
    case ElemType::Float32:
        return all_in_range<float>(b, lo, hi);
    case ElemType::Float64:
        return all_in_range<double>(b, lo, hi);
    }
    return false;
}

} // namespace

TEST_CASE("Rng is SplitMix64 and reproducible", "[random]") {
    sextant::Rng r(0);
    CHECK(r.next() == 0xe220a8397b1dcdafull); // published first SplitMix64 output for seed 0
    CHECK(r.next() == 0x6e789e6aa1b965f4ull);
    sextant::Rng a(7), b(7);
    for (int i = 0; i < 100; i++) {
        int64_t x = a.uniform(-3, 9);
        CHECK(x == b.uniform(-3, 9));
        CHECK(x >= -3);
        CHECK(x <= 9);
    }
}

TEST_CASE("planning is deterministic and seeds differ", "[random]") {
    RandomPipelineOptions o;
    std::set<uint64_t> hashes;
    for (uint64_t seed = 0; seed < 100; seed++) {
        PipelineSpec a = plan_random_pipeline(seed, o), b = plan_random_pipeline(seed, o);
        CHECK(structural_hash(a) == structural_hash(b));
        CHECK(describe(a) == describe(b));
        hashes.insert(structural_hash(a));
    }
    CHECK(hashes.size() >= 98);
}

TEST_CASE("plans respect the options", "[random]") {
    RandomPipelineOptions o;
    for (uint64_t seed = 0; seed < 300; seed++) {
        PipelineSpec s = plan_random_pipeline(seed, o);
        INFO("seed " << seed);
        REQUIRE(!s.outputs.empty());
        CHECK(int(s.outputs.size()) <= o.max_outputs);
        CHECK(int(s.stages.size()) <= o.max_stages);
        CHECK(s.estimated_work <= o.max_work);
        std::set<std::string> names;
        for (const StageSpec &st : s.stages) {
            names.insert(st.name);
            CHECK(int(st.extents.size()) >= 1);
            CHECK(int(st.extents.size()) <= o.max_dims);
            for (size_t i = 0; i < st.producers.size(); i++) {
                CHECK(st.producers[i] < int(&st - &s.stages[0])); // topological order
            }
        }
        CHECK(names.size() == s.stages.size());
        for (int out : s.outputs) {
            CHECK(s.stages[size_t(out)].tuple_size == 1);
            CHECK(consumers_of(s, out).empty());
            for (int e : s.stages[size_t(out)].extents) {
                CHECK(e >= o.min_channels);
                CHECK(e <= o.max_extent);
            }
        }
        for (const InputSpec &in : s.inputs) {
            for (int e : in.extents) {
                CHECK(e >= 1);
                CHECK(e <= o.max_extent);
            }
        }
    }
}

TEST_CASE("every output, input and scalar has estimates", "[random]") {
    for (uint64_t seed = 0; seed < 40; seed++) {
        RandomPipeline rp = make_random_pipeline(seed);
        INFO("seed " << seed);
        for (size_t o = 0; o < rp.outputs.size(); o++) {
            const std::vector<int> &ext = rp.spec.stages[size_t(rp.spec.outputs[o])].extents;
            const auto &est = rp.outputs[o].function().schedule().estimates();
            REQUIRE(est.size() == ext.size());
            for (size_t d = 0; d < ext.size(); d++) {
                CHECK(Halide::Internal::as_const_int(est[d].extent) != nullptr);
                CHECK(*Halide::Internal::as_const_int(est[d].extent) == ext[d]);
            }
            // Halide 14 appends "$n" when a name was already used in this process.
            std::string name = rp.outputs[o].name();
            CHECK(name.substr(0, name.find('$')) ==
                  rp.spec.stages[size_t(rp.spec.outputs[o])].name);
        }
        for (size_t i = 0; i < rp.inputs.size(); i++) {
            for (int d = 0; d < rp.inputs[i].dimensions(); d++) {
                const int64_t *e =
                    Halide::Internal::as_const_int(rp.inputs[i].dim(d).extent_estimate());
                REQUIRE(e != nullptr);
                CHECK(*e == rp.spec.inputs[i].extents[size_t(d)]);
            }
        }
        for (const auto &p : rp.scalar_params) {
            CHECK(p.parameter().estimate().defined());
        }
    }
}

TEST_CASE("a hand-built stencil gives hand-computed values", "[random]") {
    PipelineSpec spec;
    spec.seed = 5;
    InputSpec in;
    in.name = "in0";
    in.type = ElemType::UInt8;
    in.extents = {64};
    spec.inputs = {in};
    StageSpec s0;
    s0.kind = StageKind::InputBoundary;
    s0.name = "s0_input_boundary";
    s0.type = ElemType::UInt8;
    s0.extents = {64};
    s0.inputs = {0};
    s0.ints = {int(BoundaryKind::RepeatEdge)};
    StageSpec s1;
    s1.kind = StageKind::Stencil1D;
    s1.name = "s1_stencil_1d";
    s1.type = ElemType::UInt8;
    s1.extents = {64};
    s1.producers = {0};
    s1.ints = {0, 3, 1, 2, 1};
    spec.stages = {s0, s1};
    spec.outputs = {1};
    RandomPipeline rp = make_random_pipeline_from_spec(spec);
    std::vector<Halide::Buffer<>> outs = run_random_pipeline(rp, default_run_target());
    Halide::Buffer<uint8_t> input = make_input_buffer(spec, 0);
    Halide::Buffer<uint8_t> out(outs.at(0));
    REQUIRE(out.width() == 64);
    for (int x = 0; x < 64; x++) {
        int l = input(std::max(x - 1, 0)), c = input(x), r = input(std::min(x + 1, 63));
        CHECK(int(out(x)) == (l + 2 * c + r) / 4);
    }
}

TEST_CASE("same seed gives identical pipelines and outputs", "[random][jit]") {
    RandomPipelineOptions o = test_options();
    for (uint64_t seed : {3u, 17u, 101u, 4242u}) {
        RandomPipeline a = make_random_pipeline(seed, o), b = make_random_pipeline(seed, o);
        INFO("seed " << seed);
        CHECK(a.structural_hash == b.structural_hash);
        std::vector<Halide::Buffer<>> oa = run_random_pipeline(a, default_run_target());
        std::vector<Halide::Buffer<>> ob = run_random_pipeline(b, default_run_target());
        REQUIRE(oa.size() == ob.size());
        for (size_t i = 0; i < oa.size(); i++) {
            CHECK(buffer_checksum(oa[i]) == buffer_checksum(ob[i]));
        }
    }
}

TEST_CASE("unguarded inputs change only the input boundaries and compute the same outputs",
          "[random][jit]") {
    // The boundary condition keeps every read of the input's Func inside the image, so the
    // guard's clamp changes nothing a default schedule computes: only a schedule that grows
    // that Func's region could read past the input (sextant-fuzz --unguarded-inputs).
    RandomPipelineOptions o = test_options();
    RandomPipelineOptions u = o;
    u.unguarded_inputs = true;
    int unguarded = 0, run = 0;
    for (uint64_t seed = 0; seed < 40; seed++) {
        INFO("seed " << seed);
        PipelineSpec a = plan_random_pipeline(seed, o), b = plan_random_pipeline(seed, u);
        REQUIRE(a.stages.size() == b.stages.size());
        bool any = false;
        for (size_t i = 0; i < a.stages.size(); i++) {
            const StageSpec &x = a.stages[i], &y = b.stages[i];
            CHECK(x.kind == y.kind);
            CHECK(x.extents == y.extents);
            if (y.ints == x.ints) continue;
            REQUIRE(x.kind == StageKind::InputBoundary);
            CHECK(y.ints == std::vector<int>{x.ints[0], 1});
            CHECK(BoundaryKind(x.ints[0]) != BoundaryKind::MirrorImage);
            CHECK(BoundaryKind(x.ints[0]) != BoundaryKind::MirrorInterior);
            CHECK(BoundaryKind(x.ints[0]) != BoundaryKind::RepeatImage);
            any = true;
        }
        unguarded += any;
        if (!any || run >= 6) continue;
        run++;
        RandomPipeline pa = make_random_pipeline(seed, o), pb = make_random_pipeline(seed, u);
        CHECK(pa.structural_hash != pb.structural_hash);
        std::vector<Halide::Buffer<>> oa = run_random_pipeline(pa, default_run_target());
        std::vector<Halide::Buffer<>> ob = run_random_pipeline(pb, default_run_target());
        REQUIRE(oa.size() == ob.size());
        for (size_t i = 0; i < oa.size(); i++) {
            INFO("output " << i);
            if (oa[i].type() != Halide::Float(32)) {
                CHECK(buffer_checksum(oa[i]) == buffer_checksum(ob[i]));
                continue;
            }
            // Floats within rounding of the output's scale: the max changes how LLVM contracts
            // the arithmetic (sums of +-65536 values that cancel differ in their last bits).
            Halide::Buffer<float> fa(oa[i]), fb(ob[i]);
            float scale = 1, worst = 0;
            fa.for_each_element([&](const int *pos) {
                scale = std::max(scale, std::abs(fa(pos)));
                worst = std::max(worst, std::abs(fa(pos) - fb(pos)));
            });
            CHECK(worst <= 1e-5f * scale);
        }
    }
    CHECK(unguarded >= 10);
    CHECK(run == 6);
}

TEST_CASE("200 seeds compile and run with the default schedule", "[random][jit]") {
    RandomPipelineOptions o = test_options();
    Halide::Target t = default_run_target();
    std::set<std::string> kinds_run;
    auto start = std::chrono::steady_clock::now();
    for (uint64_t seed = 0; seed < 200; seed++) {
        INFO("seed " << seed);
        RandomPipeline rp = make_random_pipeline(seed, o);
        std::vector<Halide::Buffer<>> outs;
        REQUIRE_NOTHROW(outs = run_random_pipeline(rp, t));
        REQUIRE(outs.size() == rp.spec.outputs.size());
        for (size_t i = 0; i < outs.size(); i++) {
            const StageSpec &st = rp.spec.stages[size_t(rp.spec.outputs[i])];
            REQUIRE(outs[i].dimensions() == int(st.extents.size()));
            for (int d = 0; d < outs[i].dimensions(); d++)
                CHECK(outs[i].dim(d).extent() == st.extents[size_t(d)]);
            double lo, hi;
            canonical_range(st.type, lo, hi);
            if (st.clamp_on_access) {
                // Accumulators: only finiteness and the int32 range are promised.
                lo = -2147483648.0, hi = 2147483647.0;
            }
            CHECK(buffer_in_range(outs[i], st.type, lo, hi));
        }
        for (const StageSpec &st : rp.spec.stages)
            kinds_run.insert(kind_name(st.kind));
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN("200 seeds built, compiled and run in " << secs << " s");
    CHECK(kinds_run.size() == size_t(StageKind::Count));
}

TEST_CASE("every stage kind appears in at least 2% of 1000 plans", "[random][coverage]") {
    RandomPipelineOptions o;
    std::vector<int> with(size_t(StageKind::Count), 0);
    for (uint64_t seed = 0; seed < 1000; seed++) {
        PipelineSpec s = plan_random_pipeline(seed, o);
        std::vector<bool> seen(size_t(StageKind::Count), false);
        for (const StageSpec &st : s.stages)
            seen[size_t(st.kind)] = true;
        for (size_t k = 0; k < seen.size(); k++)
            with[k] += seen[k];
    }
    for (size_t k = 0; k < with.size(); k++) {
        INFO(kind_name(StageKind(k)) << " in " << with[k] << " of 1000");
        CHECK(with[k] >= 20);
    }
}
