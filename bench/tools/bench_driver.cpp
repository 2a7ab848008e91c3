// bench_driver: runs pipelines compiled by the bench runner (shared objects holding one Halide
// function each, built with target ...-no_runtime; this executable carries the Halide runtime
// and exports it with -rdynamic). It sizes every buffer from the pipeline's estimates, fills
// inputs with fixed pseudo-random data, and either saves the outputs as the reference, checks
// them against a saved reference, or times several pipelines with interleaved repetitions.
// It knows nothing about particular pipelines: all it needs is in halide_filter_metadata_t.
//
//   bench_driver --save-ref FILE LIB.so:FUNC           write FUNC's outputs to FILE
//   bench_driver --check FILE [--rtol X] LIB.so:FUNC   compare with FILE; exit 0 iff equal
//   bench_driver --time [--reps N] [--budget S] LIB.so:FUNC...   JSON line per pipeline
#include "HalideRuntime.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

struct Buffer {
    halide_buffer_t buf{};
    std::vector<halide_dimension_t> dims;
    std::vector<uint8_t> storage;
    size_t elems = 0;
};

struct Pipeline {
    std::string label;  // LIB:FUNC as given
    int (*argv_fn)(void **) = nullptr;
    const halide_filter_metadata_t *meta = nullptr;
    std::vector<std::unique_ptr<Buffer>> buffers;  // one per buffer argument, in order
    std::vector<halide_scalar_value_t> scalars;    // one per argument (unused for buffers)
    std::vector<void *> args;
    std::vector<Buffer *> outputs;
};

[[noreturn]] void fail(const std::string &msg) {
    std::fprintf(stderr, "bench_driver: %s\n", msg.c_str());
    std::exit(2);
}

size_t type_bytes(const halide_type_t &t) { return (t.bits + 7) / 8 * t.lanes; }

// Fills a buffer with values from a fixed stream: floats in [0, 1), integers over their
// full range (8/16 bits) or [0, 1024) for wider integers.
void fill(Buffer &b, uint32_t seed) {
    std::mt19937 rng(seed);
    const halide_type_t t = b.buf.type;
    for (size_t i = 0; i < b.elems; i++) {
        uint32_t r = rng();
        uint8_t *p = b.storage.data() + i * type_bytes(t);
        if (t.code == halide_type_float && t.bits == 32) {
            float v = (r >> 8) * (1.0f / 16777216.0f);
            std::memcpy(p, &v, 4);
        } else if (t.code == halide_type_float && t.bits == 64) {
            double v = (r >> 8) * (1.0 / 16777216.0);
            std::memcpy(p, &v, 8);
        } else if (t.bits == 8) {
            *p = uint8_t(r);
        } else if (t.bits == 16) {
            uint16_t v = uint16_t(r);
            std::memcpy(p, &v, 2);
        } else if (t.bits == 32) {
            uint32_t v = r % 1024;
            std::memcpy(p, &v, 4);
        } else if (t.bits == 64) {
            uint64_t v = r % 1024;
            std::memcpy(p, &v, 8);
        } else if (t.bits == 1) {
            *p = r & 1;
        } else {
            fail("unsupported buffer type");
        }
    }
}

halide_scalar_value_t scalar_value(const halide_filter_argument_t &a) {
    halide_scalar_value_t v;
    std::memset(&v, 0, sizeof(v));
    if (a.scalar_estimate) {
        v = *a.scalar_estimate;
    } else if (a.scalar_def) {
        v = *a.scalar_def;
    }
    return v;
}

Pipeline load(const std::string &spec, bool fill_inputs) {
    Pipeline p;
    p.label = spec;
    size_t colon = spec.rfind(':');
    if (colon == std::string::npos) fail("expected LIB.so:FUNC, got " + spec);
    std::string lib = spec.substr(0, colon), func = spec.substr(colon + 1);
    void *handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail(std::string("dlopen: ") + dlerror());
    p.argv_fn = (int (*)(void **))dlsym(handle, (func + "_argv").c_str());
    auto meta_fn = (const halide_filter_metadata_t *(*)())dlsym(handle, (func + "_metadata").c_str());
    if (!p.argv_fn || !meta_fn) fail("missing " + func + "_argv or _metadata in " + lib);
    p.meta = meta_fn();

    const int n = p.meta->num_arguments;
    p.scalars.resize(n);
    p.args.resize(n);
    for (int i = 0; i < n; i++) {
        const halide_filter_argument_t &a = p.meta->arguments[i];
        if (a.kind == halide_argument_kind_input_scalar) {
            p.scalars[i] = scalar_value(a);
            p.args[i] = &p.scalars[i];
            continue;
        }
        auto b = std::make_unique<Buffer>();
        b->dims.resize(a.dimensions);
        size_t stride = 1;
        for (int d = 0; d < a.dimensions; d++) {
            const int64_t *mn = a.buffer_estimates ? a.buffer_estimates[2 * d] : nullptr;
            const int64_t *ex = a.buffer_estimates ? a.buffer_estimates[2 * d + 1] : nullptr;
            if (!ex) fail(std::string("argument ") + a.name + " has no estimate for dim " +
                          std::to_string(d));
            b->dims[d].min = mn ? int32_t(*mn) : 0;
            b->dims[d].extent = int32_t(*ex);
            b->dims[d].stride = int32_t(stride);
            b->dims[d].flags = 0;
            stride *= size_t(*ex);
        }
        b->elems = stride;
        b->storage.assign(stride * type_bytes(a.type) + 64, 0);
        b->buf.host = b->storage.data();
        b->buf.type = a.type;
        b->buf.dimensions = a.dimensions;
        b->buf.dim = b->dims.data();
        if (a.kind == halide_argument_kind_input_buffer) {
            if (fill_inputs) fill(*b, 1234u + 7919u * uint32_t(i));
        } else {
            p.outputs.push_back(b.get());
        }
        p.args[i] = &b->buf;
        p.buffers.push_back(std::move(b));
    }
    return p;
}

double run_once(Pipeline &p) {
    auto t0 = std::chrono::steady_clock::now();
    int err = p.argv_fn(p.args.data());
    auto t1 = std::chrono::steady_clock::now();
    if (err != 0) fail(p.label + " returned error " + std::to_string(err));
    return std::chrono::duration<double>(t1 - t0).count();
}

size_t output_bytes(const Buffer &b) { return b.elems * type_bytes(b.buf.type); }

int save_ref(Pipeline &p, const std::string &file) {
    run_once(p);
    std::ofstream f(file, std::ios::binary);
    for (Buffer *b : p.outputs) f.write((const char *)b->storage.data(), output_bytes(*b));
    if (!f) fail("cannot write " + file);
    return 0;
}

template <typename T>
double as_double(const uint8_t *p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return double(v);
}

double element(const Buffer &b, size_t i) {
    const halide_type_t t = b.buf.type;
    const uint8_t *p = b.storage.data() + i * type_bytes(t);
    if (t.code == halide_type_float) return t.bits == 32 ? as_double<float>(p) : as_double<double>(p);
    const bool s = t.code == halide_type_int;
    switch (t.bits) {
    case 1:
    case 8: return s ? as_double<int8_t>(p) : as_double<uint8_t>(p);
    case 16: return s ? as_double<int16_t>(p) : as_double<uint16_t>(p);
    case 32: return s ? as_double<int32_t>(p) : as_double<uint32_t>(p);
    default: return s ? as_double<int64_t>(p) : as_double<uint64_t>(p);
    }
}

// Integers must match exactly; floats within rtol relative to max(|reference|, 1).
int check(Pipeline &p, const std::string &file, double rtol) {
    run_once(p);
    std::ifstream f(file, std::ios::binary);
    if (!f) fail("cannot read " + file);
    size_t bad = 0, total = 0;
    double worst = 0;
    std::string first;
    for (size_t o = 0; o < p.outputs.size(); o++) {
        const Buffer &b = *p.outputs[o];
        Buffer ref;
        ref.buf.type = b.buf.type;
        ref.elems = b.elems;
        ref.storage.resize(output_bytes(b));
        f.read((char *)ref.storage.data(), ref.storage.size());
        if (!f) fail("reference " + file + " is shorter than the outputs");
        const bool is_float = b.buf.type.code == halide_type_float;
        for (size_t i = 0; i < b.elems; i++) {
            double want = element(ref, i), got = element(b, i);
            double err = std::fabs(got - want);
            bool ok = is_float ? (err <= rtol * std::max(std::fabs(want), 1.0) ||
                                  (std::isnan(want) && std::isnan(got)))
                               : got == want;
            total++;
            if (!ok) {
                if (!bad) {
                    first = "output " + std::to_string(o) + " element " + std::to_string(i) +
                            ": got " + std::to_string(got) + ", want " + std::to_string(want);
                }
                bad++;
            }
            if (!std::isnan(err)) worst = std::max(worst, err / std::max(std::fabs(want), 1.0));
        }
    }
    std::string summary = std::to_string(bad) + " of " + std::to_string(total) +
                          " elements differ (max rel err " + std::to_string(worst) + ")";
    if (bad) summary += "; first: " + first;
    std::printf("{\"pipeline\": \"%s\", \"mismatches\": %zu, \"elements\": %zu, "
                "\"max_rel_err\": %.3g, \"summary\": \"%s\"}\n",
                p.label.c_str(), bad, total, worst, summary.c_str());
    return bad ? 1 : 0;
}

int time_all(std::vector<Pipeline> &ps, int reps, double budget_s) {
    // Warm up each pipeline; choose how many runs make one sample (>= ~10 ms).
    std::vector<int> iters(ps.size());
    for (size_t i = 0; i < ps.size(); i++) {
        double t = run_once(ps[i]);
        iters[i] = std::max(1, std::min(100, int(std::ceil(0.01 / std::max(t, 1e-6)))));
    }
    std::vector<std::vector<double>> samples(ps.size());
    std::vector<double> spent(ps.size(), 0.0);
    for (int r = 0; r < reps; r++) {
        for (size_t i = 0; i < ps.size(); i++) {
            if (samples[i].size() >= 3 && spent[i] > budget_s) continue;
            double total = 0;
            for (int k = 0; k < iters[i]; k++) total += run_once(ps[i]);
            spent[i] += total;
            samples[i].push_back(total / iters[i]);
        }
    }
    for (size_t i = 0; i < ps.size(); i++) {
        std::vector<double> s = samples[i];
        std::sort(s.begin(), s.end());
        double median = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
        std::printf("{\"pipeline\": \"%s\", \"samples\": %zu, \"runs_per_sample\": %d, "
                    "\"min_ms\": %.6g, \"median_ms\": %.6g}\n",
                    ps[i].label.c_str(), s.size(), iters[i], 1e3 * s.front(), 1e3 * median);
    }
    return 0;
}

}  // namespace

// Halide runtime errors (e.g. an allocation too large) are printed and turned into a failed
// run, instead of the default handler's abort().
void on_halide_error(void *, const char *msg) {
    std::fprintf(stderr, "halide error: %s\n", msg);
    std::fflush(stderr);
}

int main(int argc, char **argv) {
    halide_set_error_handler(on_halide_error);
    std::string mode, file;
    int reps = 10;
    double budget = 20.0, rtol = 1e-4;
    std::vector<std::string> specs;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) fail("missing value after " + a);
            return argv[++i];
        };
        if (a == "--save-ref" || a == "--check") {
            mode = a;
            file = next();
        } else if (a == "--time") {
            mode = a;
        } else if (a == "--reps") {
            reps = std::max(1, std::atoi(next().c_str()));
        } else if (a == "--budget") {
            budget = std::atof(next().c_str());
        } else if (a == "--rtol") {
            rtol = std::atof(next().c_str());
        } else if (!a.empty() && a[0] == '-') {
            fail("unknown option " + a);
        } else {
            specs.push_back(a);
        }
    }
    if (mode.empty() || specs.empty()) {
        fail("usage: bench_driver (--save-ref FILE | --check FILE | --time) LIB.so:FUNC...");
    }
    if (mode != "--time" && specs.size() != 1) fail(mode + " takes exactly one pipeline");
    std::vector<Pipeline> ps;
    for (const auto &s : specs) ps.push_back(load(s, true));
    if (mode == "--save-ref") return save_ref(ps[0], file);
    if (mode == "--check") return check(ps[0], file, rtol);
    return time_all(ps, reps, budget);
}
