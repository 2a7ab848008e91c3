// The in-process half of sextant-time: see DriverChild.h.
#include "measure/DriverChild.h"

#include "HalideRuntime.h"

#include "measure/PageCache.h"
#include "measure/Protocol.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

namespace sextant::driver {

/** Prints a failure line (the parent reads it) and exits. */
[[noreturn]] void fail(const std::string &msg, const char *kind) {
    std::fprintf(stderr, "sextant-time: %s\n", msg.c_str());
    std::printf("%s\n", timing_error_json(kind, msg).c_str());
    std::fflush(nullptr);
    std::exit(kExitFailed);
}

namespace {

void *load_library(const std::string &path, int flags) {
    // Each timed process maps the code into pages of its own drawing (measure/PageCache.h).
    drop_cached_pages(path);
    void *h = dlopen(path.c_str(), flags);
    if (!h) fail(std::string("dlopen: ") + dlerror());
    return h;
}

/** The Halide runtime's error messages of this process, for the error line. A C callback
 * without a user pointer can only reach a file-level variable; this process runs one
 * pipeline at a time, on one thread. */
std::string g_halide_errors;

void on_halide_error(void *, const char *msg) {
    std::fprintf(stderr, "halide error: %s\n", msg);
    std::fflush(stderr);
    if (g_halide_errors.size() < 2000) g_halide_errors += msg;
}

size_t type_bytes(const halide_type_t &t) {
    return (t.bits + 7) / 8 * t.lanes;
}

struct Buffer {
    halide_buffer_t buf{};
    std::vector<halide_dimension_t> dims;
    std::vector<uint8_t> storage;
    size_t offset = 0; ///< of the host pointer in `storage` (allocate aligns it)
    size_t elems = 0;
    uint8_t *data() { return storage.data() + offset; }
    const uint8_t *data() const { return storage.data() + offset; }
};

/** Alignment of the buffers this driver allocates: what Halide::Runtime::Buffer (RunGen's)
 * gives. Halide's code may use aligned vector loads on them (vmovdqa32 on AVX-512): a buffer
 * aligned to 16 bytes only crashed random pipeline seed 20013. */
constexpr size_t kHostAlignment = 128;

/** A SPEC that times the machine-speed probe (Protocol.h) instead of a pipeline: the spread
 * of a fixed workload over fresh processes, to hold a schedule's spread against. */
const std::string kProbeSpec = "probe";

struct Pipeline {
    std::string label; // LIB:FUNC as given
    int (*argv_fn)(void **) = nullptr;
    const halide_filter_metadata_t *meta = nullptr;
    std::vector<std::unique_ptr<Buffer>> buffers; // one per buffer argument, in order
    std::vector<halide_scalar_value_t> scalars;   // one per argument (unused for buffers)
    std::vector<void *> args;
    std::vector<Buffer *> outputs;
    std::vector<std::pair<Buffer *, int>> inputs; // with their argument index
};

/** Dense storage for b's dims (min and extent set), innermost dimension first. */
void allocate(Buffer &b) {
    size_t stride = 1;
    for (halide_dimension_t &d : b.dims) {
        d.stride = int32_t(stride);
        d.flags = 0;
        stride *= size_t(std::max(0, d.extent));
    }
    b.elems = stride;
    b.storage.assign(stride * type_bytes(b.buf.type) + 64 + kHostAlignment, 0);
    const uintptr_t base = reinterpret_cast<uintptr_t>(b.storage.data());
    b.offset = (kHostAlignment - base % kHostAlignment) % kHostAlignment;
    b.buf.host = b.data();
    b.buf.dim = b.dims.data();
}

/** SplitMix64's finaliser: a well-mixed 64-bit hash of `x`. */
uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/** Fills a buffer with values that depend only on `seed` and each element's coordinates, so an
 * input holds the same value at a point however large a region of it a schedule needs (one
 * reading past the estimates gets a larger buffer). Without a range: floats in [0, 1),
 * integers over their full range (8/16 bits) or [0, 1024) for wider ones. With one: values in
 * [lo, hi], integers uniform, floats multiples of 1/256. */
void fill(Buffer &b, uint32_t seed, const Range *range) {
    const halide_type_t t = b.buf.type;
    const bool is_float = t.code == halide_type_float;
    std::vector<int64_t> at(b.dims.size());
    for (size_t d = 0; d < b.dims.size(); d++)
        at[d] = b.dims[d].min;
    for (size_t i = 0; i < b.elems; i++) {
        uint64_t h = mix64(seed);
        for (int64_t c : at)
            h = mix64(h ^ uint64_t(c));
        const uint32_t r = uint32_t(h >> 32);
        // The next element's coordinates, innermost dimension first (dense storage).
        for (size_t d = 0; d < at.size(); d++) {
            if (++at[d] < int64_t(b.dims[d].min) + b.dims[d].extent) break;
            at[d] = b.dims[d].min;
        }
        uint8_t *p = b.data() + i * type_bytes(t);
        double v;
        if (range) {
            double span = std::max(0.0, range->hi - range->lo);
            v = is_float ? range->lo + double(r % (uint64_t(span) * 256 + 1)) / 256.0
                         : range->lo + double(r % (uint64_t(span) + 1));
        } else if (is_float) {
            v = (r >> 8) * (1.0 / 16777216.0);
        } else if (t.bits <= 16) {
            v = double(r & ((1u << t.bits) - 1));
            if (t.code == halide_type_int && v >= double(1u << (t.bits - 1)))
                v -= double(1u << t.bits);
        } else {
            v = double(r % 1024);
        }
        if (is_float && t.bits == 32) {
            float f = float(v);
            std::memcpy(p, &f, 4);
        } else if (is_float && t.bits == 64) {
            std::memcpy(p, &v, 8);
        } else if (t.bits == 1 || t.bits == 8) {
            *p = uint8_t(int64_t(v) & (t.bits == 1 ? 1 : 0xff));
        } else if (t.bits == 16) {
            uint16_t x = uint16_t(int64_t(v));
            std::memcpy(p, &x, 2);
        } else if (t.bits == 32) {
            uint32_t x = uint32_t(int64_t(v));
            std::memcpy(p, &x, 4);
        } else if (t.bits == 64) {
            uint64_t x = uint64_t(int64_t(v));
            std::memcpy(p, &x, 8);
        } else {
            fail("unsupported buffer type");
        }
    }
}

halide_scalar_value_t scalar_value(const halide_filter_argument_t &a) {
    halide_scalar_value_t v;
    std::memset(static_cast<void *>(&v), 0, sizeof(v));
    if (a.scalar_estimate) {
        v = *a.scalar_estimate;
    } else if (a.scalar_def) {
        v = *a.scalar_def;
    }
    return v;
}

/** Installs on_halide_error in whichever runtime the pipeline uses: its own, or the global
 * one (--runtime, or this executable's). */
void set_error_handler(void *lib) {
    using Setter = halide_error_handler_t (*)(halide_error_handler_t);
    auto set = (Setter)dlsym(lib, "halide_set_error_handler");
    if (!set) set = (Setter)dlsym(RTLD_DEFAULT, "halide_set_error_handler");
    if (set) set(on_halide_error);
}

/** Sizes every input from its estimates and from a bounds query (RunGen's adapt_input_buffer):
 * a schedule may read past the estimated region (RoundUp tails, a stencil without a boundary
 * condition), and then gets the region it reads. With `exact`, the estimates are kept and a
 * read outside them is an error naming the input, dimension and both regions. */
void size_inputs(Pipeline &p, bool exact) {
    if (p.inputs.empty()) return;
    // The estimates (where the metadata has them), then a query with every input's host null:
    // the call fills in the region it reads. The query buffers keep the estimated shape (as
    // RunGen's do): a boundary condition on an input's own bounds (repeat_edge(input)) clamps
    // to the shape it is given, so a query with empty shapes answers garbage (bench nl_means:
    // x in [-15, 0]) and the input, grown to it, moved the clamped edge.
    std::vector<std::vector<halide_dimension_t>> estimated;
    for (const auto &in : p.inputs) {
        estimated.push_back(in.first->dims);
        in.first->storage.clear();
        in.first->buf.host = nullptr;
        in.first->buf.dim = in.first->dims.data();
    }
    if (p.argv_fn(p.args.data()) != 0)
        fail(p.label + ": the bounds query for its inputs failed" +
             (g_halide_errors.empty() ? "" : ": halide error: " + g_halide_errors));
    for (size_t k = 0; k < p.inputs.size(); k++) {
        Buffer &b = *p.inputs[k].first;
        const halide_filter_argument_t &a = p.meta->arguments[p.inputs[k].second];
        for (size_t d = 0; d < b.dims.size(); d++) {
            const halide_dimension_t &e = estimated[k][d];
            if (e.extent <= 0) continue; // no estimate: the queried region alone
            const int64_t lo = b.dims[d].min, hi = lo + b.dims[d].extent - 1;
            const int64_t elo = e.min, ehi = e.min + int64_t(e.extent) - 1;
            if (exact) {
                if (b.dims[d].extent > 0 && (lo < elo || hi > ehi))
                    fail(p.label + ": input '" + a.name + "' dimension " + std::to_string(d) +
                         ": the schedule reads [" + std::to_string(lo) + ", " + std::to_string(hi) +
                         "], the estimates give [" + std::to_string(elo) + ", " +
                         std::to_string(ehi) +
                         "] (without --exact-inputs the input grows to what it reads)");
                b.dims[d].min = e.min;
                b.dims[d].extent = e.extent;
            } else {
                const int64_t nlo = b.dims[d].extent > 0 ? std::min(lo, elo) : elo;
                const int64_t nhi = b.dims[d].extent > 0 ? std::max(hi, ehi) : ehi;
                b.dims[d].min = int32_t(nlo);
                b.dims[d].extent = int32_t(nhi - nlo + 1);
            }
        }
        allocate(b);
    }
}

Pipeline load(const std::string &spec, const std::map<std::string, Range> &ranges,
              bool exact_inputs) {
    Pipeline p;
    p.label = spec;
    if (spec == kProbeSpec) return p; // call() runs the fixed workload
    size_t colon = spec.rfind(':');
    if (colon == std::string::npos) fail("expected LIB.so:FUNC, got " + spec);
    std::string lib = spec.substr(0, colon), func = spec.substr(colon + 1);
    void *handle = load_library(lib, RTLD_NOW | RTLD_LOCAL);
    set_error_handler(handle);
    p.argv_fn = (int (*)(void **))dlsym(handle, (func + "_argv").c_str());
    auto meta_fn =
        (const halide_filter_metadata_t *(*)())dlsym(handle, (func + "_metadata").c_str());
    if (!p.argv_fn || !meta_fn) fail("missing " + func + "_argv or _metadata in " + lib);
    p.meta = meta_fn();

    const int n = p.meta->num_arguments;
    p.scalars.resize(size_t(n));
    p.args.resize(size_t(n));
    for (int i = 0; i < n; i++) {
        const halide_filter_argument_t &a = p.meta->arguments[i];
        if (a.kind == halide_argument_kind_input_scalar) {
            p.scalars[size_t(i)] = scalar_value(a);
            p.args[size_t(i)] = &p.scalars[size_t(i)];
            continue;
        }
        auto b = std::make_unique<Buffer>();
        b->dims.resize(size_t(a.dimensions));
        b->buf.type = a.type;
        b->buf.dimensions = a.dimensions;
        b->buf.dim = b->dims.data();
        bool sized = true;
        for (int d = 0; d < a.dimensions; d++) {
            const int64_t *mn = a.buffer_estimates ? a.buffer_estimates[2 * d] : nullptr;
            const int64_t *ex = a.buffer_estimates ? a.buffer_estimates[2 * d + 1] : nullptr;
            if (!ex) {
                // An output must have estimates; an input without them is sized below by a
                // bounds query, as RunGen does.
                if (a.kind != halide_argument_kind_input_buffer)
                    fail(std::string("output ") + a.name + " has no estimate for dim " +
                         std::to_string(d));
                sized = false;
                continue;
            }
            b->dims[size_t(d)].min = mn ? int32_t(*mn) : 0;
            b->dims[size_t(d)].extent = int32_t(*ex);
        }
        if (a.kind == halide_argument_kind_input_buffer) {
            if (!sized) b->dims.assign(b->dims.size(), halide_dimension_t{});
            b->buf.dim = b->dims.data();
            p.inputs.push_back({b.get(), i}); // sized by size_inputs
        } else {
            allocate(*b);
            p.outputs.push_back(b.get());
        }
        p.args[size_t(i)] = &b->buf;
        p.buffers.push_back(std::move(b));
    }
    size_inputs(p, exact_inputs);
    for (const auto &in : p.inputs) {
        const char *name = p.meta->arguments[in.second].name;
        auto r = ranges.find(name);
        fill(*in.first, 1234u + 7919u * uint32_t(in.second),
             r == ranges.end() ? nullptr : &r->second);
    }
    return p;
}

bool call(Pipeline &p) {
    if (!p.argv_fn) { // kProbeSpec
        probe_machine_speed();
        return true;
    }
    int err = p.argv_fn(p.args.data());
    if (err == 0) return true;
    fail(p.label + " returned error " + std::to_string(err) +
         (g_halide_errors.empty() ? "" : ": halide error: " + g_halide_errors));
}

size_t output_bytes(const Buffer &b) {
    return b.elems * type_bytes(b.buf.type);
}

int save_ref(Pipeline &p, const std::string &file) {
    call(p);
    std::ofstream f(file, std::ios::binary);
    for (Buffer *b : p.outputs)
        f.write((const char *)b->data(), std::streamsize(output_bytes(*b)));
    if (!f) fail("cannot write " + file);
    return 0;
}

template <typename T> double as_double(const uint8_t *p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return double(v);
}

double element(const Buffer &b, size_t i) {
    const halide_type_t t = b.buf.type;
    const uint8_t *p = b.data() + i * type_bytes(t);
    if (t.code == halide_type_float)
        return t.bits == 32 ? as_double<float>(p) : as_double<double>(p);
    const bool s = t.code == halide_type_int;
    switch (t.bits) {
    case 1:
    case 8:
        return s ? as_double<int8_t>(p) : as_double<uint8_t>(p);
    case 16:
        return s ? as_double<int16_t>(p) : as_double<uint16_t>(p);
    case 32:
        return s ? as_double<int32_t>(p) : as_double<uint32_t>(p);
    default:
        return s ? as_double<int64_t>(p) : as_double<uint64_t>(p);
    }
}

/** Integers must match exactly; floats within rtol relative to max(|reference|, 1). */
int check_one(Pipeline &p, const std::string &file, double rtol) {
    call(p);
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
        f.read((char *)ref.storage.data(), std::streamsize(ref.storage.size()));
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
                if (!bad)
                    first = "output " + std::to_string(o) + " element " + std::to_string(i) +
                            ": got " + std::to_string(got) + ", want " + std::to_string(want);
                bad++;
            }
            if (!std::isnan(err)) worst = std::max(worst, err / std::max(std::fabs(want), 1.0));
        }
    }
    std::string summary = std::to_string(bad) + " of " + std::to_string(total) +
                          " elements differ (max rel err " + std::to_string(worst) + ")";
    if (bad) summary += "; first: " + first;
    nlohmann::json j = {{"pipeline", p.label}, {"mismatches", bad},
                        {"elements", total},   {"max_rel_err", worst},
                        {"summary", summary},  {"failure_kind", bad ? "wrong_output" : "ok"}};
    std::printf("%s\n", j.dump().c_str());
    return bad ? kExitWrongOutput : 0;
}

int time_one(Pipeline &p, const StopRule &rule) {
    TimedRuns t;
    time_runs([&] { return call(p); }, rule, t);
    std::printf("%s\n", timed_runs_to_json(t).c_str());
    return 0;
}

} // namespace

int run_child_mode(const ChildRun &c) {
    if (!c.runtime.empty()) load_library(c.runtime, RTLD_NOW | RTLD_GLOBAL);
    Pipeline p = load(c.spec, c.ranges, c.exact_inputs);
    if (c.mode == "--save-ref") return save_ref(p, c.file);
    if (c.mode == "--check-one") return check_one(p, c.file, c.rtol);
    return time_one(p, c.rule);
}

} // namespace sextant::driver
