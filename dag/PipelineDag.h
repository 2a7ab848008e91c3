// PipelineDag: a Halide pipeline as plain data with integer ids — stages, loops, loads with
// their Jacobians, producer-consumer edges with symbolic footprints, and the bounds implied by
// the output estimates. Built once by the Halide adapter (halide/DagBuilder); read-only
// afterwards. Contains no Halide types, so the search, featurizer and cost model (and their
// tests) never need Halide.
#pragma once

#include "BoundExpr.h"
#include "support/SmallVec.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sextant {

/** Scalar type classes used by histograms and byte counts. */
enum class TypeClass : uint8_t { Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, F32, F64 };
constexpr int kNumTypeClasses = 12;
const char *type_class_name(TypeClass t);
int type_class_bytes(TypeClass t);
/** Maps (is_float, is_uint, is_bool, bits) to a class; throws on unsupported types. */
TypeClass type_class_of(bool is_float, bool is_uint, bool is_bool, int bits);

/** Operation kinds counted per stage (one per IR node of the stage's definition). */
enum class OpKind : uint8_t {
    Constant,
    Cast,
    Variable,
    Param,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    MinMax,
    Compare,
    Logical,
    Select,
    Bitwise,
    Math, // other intrinsic and extern calls (sqrt, abs, floor, saturating ops, ...)
    FuncLoad,
    InputLoad,
    Let,
    Transcendental, // sin, cos, exp, log, pow, atan, ...: a polynomial of 10-30 instructions
};
constexpr int kNumOpKinds = 19;
/** Rough cost of one operation of kind k in simple arithmetic instructions (1 for add, mul,
 * compare, ...; 0 for constants, variables, loads and lets). ops_per_point sums these. */
double op_kind_cost(OpKind k);
const char *op_kind_name(OpKind k);

/** Counts of operations by (kind, type). */
struct OpHistogram {
    std::array<int32_t, kNumOpKinds * kNumTypeClasses> counts{};
    int32_t &at(OpKind k, TypeClass t) { return counts[int(k) * kNumTypeClasses + int(t)]; }
    int32_t at(OpKind k, TypeClass t) const { return counts[int(k) * kNumTypeClasses + int(t)]; }
    int64_t total() const;
    /** Sum over types of kind k. */
    int64_t of_kind(OpKind k) const;
    /** Bytes of the widest type any counted op works on (1 if none). */
    int widest_type_bytes() const;
    /** Work in simple-instruction units: every count times op_kind_cost of its kind. */
    double work() const;
    void add(const OpHistogram &o, int64_t times = 1);
};

struct Interval64 {
    int64_t min = 0, max = -1;
    int64_t extent() const { return max - min + 1; }
    bool empty() const { return max < min; }
    void include(const Interval64 &o);
    /** Whether `o` lies inside this interval (an empty one always does). */
    bool contains(const Interval64 &o) const { return o.empty() || (min <= o.min && o.max <= max); }
    bool operator==(const Interval64 &o) const { return min == o.min && max == o.max; }
};
/** One interval per dimension, inline up to six (SmallVec: no heap for a box). */
using Box64 = SmallVec<Interval64, 6>;
int64_t box_volume(const Box64 &b);

/** One loop of a stage, as Halide names it before any scheduling. */
struct LoopDim {
    std::string name;
    bool is_rvar = false;
    /** Index of the storage dimension this pure var indexes, or -1 for an RVar. */
    int func_dim = -1;
    /** Estimated iteration range when the stage covers its Func's whole bounds. */
    Interval64 range;
    /** Iterations are independent: pure var whose self-reads all use it in its own position.
     * Only such loops may be parallelized or vectorized. */
    bool parallel_safe = false;
    /** The largest small constant (2-4) the definition takes this var modulo (`x % 2 == 1`
     * picks a Bayer phase), or 0. Halide vectorizes a select on it by deinterleaving: each
     * load along the var becomes a load strided by that constant. */
    int parity_mod = 0;
    /** An RVar whose bounds are compile-time constants (no Param, before estimates): Halide
     * sees its loop's extent as a constant. */
    bool fixed_range = false;
};

enum class ProducerKind : uint8_t { Func, Input };

/** d(index of producer dim) / d(stage loop), a rational, or "not affine". */
struct JacobianEntry {
    int64_t num = 0, den = 1;
    bool affine = true;
    bool operator==(const JacobianEntry &o) const {
        return affine == o.affine && (!affine || (num == o.num && den == o.den));
    }
};

/** One distinct memory access of a stage (repeated identical accesses are counted). */
struct Load {
    ProducerKind kind = ProducerKind::Func;
    int producer = -1; // func id or input id
    bool self = false; // reads the stage's own Func (an update's previous values)
    int count = 1;
    bool data_dependent = false; // the index depends on loaded values
    int producer_dims = 0;
    int loop_dims = 0;
    TypeClass type = TypeClass::F32;
    /** Row-major [producer_dim][loop_dim]. */
    std::vector<JacobianEntry> jacobian;
    /** Per producer dim: min/max nodes in the index (a clamp; empty = none anywhere). They
     * are not in the stage's op histogram as work: an index clamp costs once per iteration of
     * the innermost loop it moves with (hoisted), and a `likely` one (boundary conditions) not
     * at all in the steady state of a loop Halide partitions (docs/COSTMODEL.md). */
    std::vector<int> clamps;
    /** Per producer dim: the index holds a `likely` mark (Halide's loop partitioning). */
    std::vector<bool> likely;
    int clamps_at(int pdim) const { return clamps.empty() ? 0 : clamps[size_t(pdim)]; }
    bool likely_at(int pdim) const { return !likely.empty() && likely[size_t(pdim)]; }
    const JacobianEntry &at(int pdim, int loop) const { return jacobian[pdim * loop_dims + loop]; }
};

/** A consumer stage needs a region of a producer. Footprints are symbolic in the consumer's
 * loop bounds: producer dim d needs [min[d](box), max[d](box)]. */
struct Edge {
    int consumer_func = -1, consumer_stage = -1;
    ProducerKind kind = ProducerKind::Func;
    int producer = -1;
    std::vector<BoundExpr> min, max;
    int calls = 0; // call sites in the consumer stage
    /** Required producer region for a box of consumer loop iterations. */
    void required(const Box64 &consumer_loops, Box64 *out) const;
};

struct Stage {
    int func = -1;
    int index = 0; // 0: the pure definition; k: update k-1
    std::string name;
    std::vector<LoopDim> loops; // innermost first, as Halide orders them
    OpHistogram ops;
    /** Per point: calls of the transcendentals Halide 14 has no vector form of on x86 (sin,
     * cos, tan, their inverses and hyperbolic forms: one libm call per lane; exp, log and pow
     * are vector polynomials). Also counted in `ops` as Transcendental. */
    int scalarized_calls = 0;
    std::vector<Load> loads;
    std::vector<int> edges_in; // edges in which this stage is the consumer
    /** Per loop: 1 if a split of it rounds the Func's region up to whole tiles (Halide's
     * TailStrategy::RoundUp, which the directives use for pure vars of updates where they
     * may: search/Tails.h). Filled by annotate_tails; empty means none does. */
    std::vector<uint8_t> rounds_up;
    /** An update whose reduction Halide can factor (Func::rfactor): its RHS is a commutative
     * associative operator on the Func's own value at the LHS point (`h(g(r)) += 1`, a min,
     * a max), proven by Halide's prove_associativity, over a rectangular RDom (no RVar's
     * bounds use another) without a `where` predicate. The search may then run bands of its
     * outermost RVar in parallel, each into a copy of the Func merged afterwards
     * (StageSched::rfactor). */
    bool can_rfactor = false;
    /** Never vectorized: a vector form Halide 14 cannot compile (a float64 product of a
     * uint8 or uint16 value: F64OfNarrowUint in halide/CodegenQuirks.h). */
    bool no_vectorize = false;
    /** An update whose `where` predicate reads its vectorized (storage dim 0) pure var:
     * vectorized, every load and the store are masked per lane. Offered one vector of natural
     * width at most: at twice that, LLVM took 85 s to compile random pipeline 200832's
     * `s9_reduce_max` (64 masked uint16 lanes gathering through an inlined mirror_image; 1.1 s
     * at 32 lanes), past the sampler's 60 s and a user's patience (docs/SEARCH.md, "Masked
     * vectors"). */
    bool masked_lanes = false;
    int64_t points() const; // iterations over the stage's full range
    /** Loop box when the stage covers its whole range. */
    Box64 full_loop_box() const;
};

struct FuncNode {
    int id = -1;
    std::string name;
    std::vector<std::string> dims; // pure var names, innermost (storage dim 0) first
    /** Stored in another order than its arguments' (halide/StorageOrder.h): the schedule
     * carries `reorder_storage(dims)`. */
    bool storage_reordered = false;
    std::vector<TypeClass> value_types; // one per Tuple element
    int bytes_per_point = 0;
    bool is_output = false;
    bool can_inline = false; // pure, no update, not an output
    /** Halide's wrapper of an input buffer (ImageParam's "<name>_im"): always inlined. */
    bool is_input_wrapper = false;
    Box64 bounds; // estimated region to realize
    std::vector<Stage> stages;
    std::vector<int> edges_out; // edges in which this Func is the producer
    /** Distinct Funcs whose stages read this one (excluding itself), in id order. */
    std::vector<int> consumers;
    /** A consumer reads it through a clamp of its own coordinates: inside a consumer's tile
     * its region is no constant Halide can see (read_through_moving_clamp, search/Tails.h;
     * filled by annotate_tails). */
    bool read_through_clamp = false;
    /** Its region is a constant Halide can see: no output's size reaches it, only RDoms of
     * fixed range and clamped or constant indices (a histogram's bins, a lookup table, what a
     * fixed-size reduction reads). Root, its loops and the indices of its loads are
     * constants too. Filled by annotate_tails (fixed_region in search/Tails.h). */
    bool fixed_region = false;
    /** Bytes per point of its largest Tuple element: Halide allocates each element as a
     * buffer of its own. */
    int element_bytes() const;
};

struct InputNode {
    int id = -1;
    std::string name;
    TypeClass type = TypeClass::F32;
    int dims = 0;
    Box64 bounds; // region the pipeline reads (inferred from its consumers' footprints)
    /** The buffer the user passes: the input's estimates where it has them, else `bounds`.
     * A schedule may read inside it beyond `bounds` (a clamp to the image reads what a grown
     * tile asks for), never outside it. */
    Box64 buffer;
};

/** What the search needs to know about the machine and target. The defaults are Halide's
 * generic machine (MachineParams::generic: 16 cores, 16 MiB); the tools that measure on this
 * host (sampler, autotuner) use host_machine() instead. */
struct MachineInfo {
    int parallelism = 16;
    int64_t last_level_cache_bytes = 16 * 1024 * 1024;
    /** Halide's MachineParams::balance (cost of a memory access over an arithmetic op). Kept
     * because users pass it and it is part of a sample's machine identity
     * (sampler/RandomWorkload.h: "cores=;llc=;balance="), but no cost term reads it: the
     * analytical model's coefficients are measured on the machine instead
     * (docs/COSTMODEL.md); the featurizer uses the cores and cache size above. */
    double balance = 40;
    int vector_bits = 256; // natural SIMD width of the target
    /** The largest single buffer Halide lets the target allocate: 2^31 - 1 bytes unless the
     * target has `large_buffers` (Halide fails at compile or run time with "Total allocation
     * for buffer ... exceeds the maximum size" beyond it). Each Tuple element is a buffer. */
    int64_t max_buffer_bytes = 2147483647;
    /** SIMD lanes of one vector register for the Func's narrowest value type on the target
     * (the search caps the widths it offers separately: SearchSpace::vector_lanes). */
    int natural_vector_lanes(const FuncNode &f) const;
};

/** One of cpu0's caches as sysfs reports it (/sys/devices/system/cpu/cpu0/cache/indexN). */
struct HostCache {
    int level = 0;
    std::string type; ///< "Data", "Instruction" or "Unified"
    std::string size; ///< as sysfs writes it, e.g. "32768K"
    int64_t bytes = 0;
};
/** cpu0's caches, in sysfs's order; empty where sysfs cannot be read. */
std::vector<HostCache> host_caches();

/** This host: `parallelism` cores (<= 0: all online CPUs) and the size of the highest cache
 * level sysfs reports for cpu0, or `llc_bytes` where it is > 0 (a VM whose sysfs reports no
 * caches records MachineInfo's default otherwise). */
MachineInfo host_machine(int parallelism, int64_t llc_bytes = 0);

struct PipelineDag {
    /** Funcs in realization order: producers before consumers. */
    std::vector<FuncNode> funcs;
    std::vector<InputNode> inputs;
    std::vector<Edge> edges;
    std::vector<int> outputs; // func ids
    MachineInfo machine;

    int find_func(const std::string &name) const; // -1 if none
    const Stage &stage(int func, int index) const { return funcs[func].stages[index]; }
    /** Recomputes FuncNode::consumers and edges_out from edges. */
    void link();
};

} // namespace sextant
