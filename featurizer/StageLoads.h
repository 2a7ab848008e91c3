// StageLoads: the loads of a non-inlined stage as its compiled loop body makes them, after
// the inlined Funcs it reads are substituted: each with its Jacobian in the stage's own loops
// and the index clamps on its way, plus the arithmetic of the substituted bodies. Internal to
// the featurizer (AccessFeatures.cpp and Featurizer.cpp price them).
#pragma once

#include "dag/PipelineDag.h"
#include "search/LoopNest.h"
#include "search/Schedule.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace sextant {

/** A set of a root stage's loops (at most kMaxStageLoops), as bits: the featurizer builds
 * several per load of every candidate, and a std::vector<bool> each was a heap allocation. */
class LoopSet {
public:
    bool operator[](size_t j) const { return (bits_ >> j) & 1u; }
    void set(size_t j) { bits_ |= uint32_t(1) << j; }
    LoopSet &operator|=(LoopSet o) {
        bits_ |= o.bits_;
        return *this;
    }
    bool operator==(LoopSet o) const { return bits_ == o.bits_; }

private:
    static_assert(kMaxStageLoops <= 32, "LoopSet holds 32 loops");
    uint32_t bits_ = 0;
};

/** A load seen from a non-inlined stage, after looking through inlined Funcs. */
struct EffLoad {
    ProducerKind kind;
    int producer;
    bool self;
    double count;
    /** d(producer index in dim p)/d(root stage loop j), row-major [p][j]; NaN = not affine. */
    std::vector<double> jac;
    int root_loops;
    /** Per root stage loop: an index clamp on the way to this load (in it, or in the call of
     * an inlined Func it is read through) moves with the loop. */
    LoopSet clamp_moves;
    double at(int p, int j) const { return jac[p * root_loops + j]; }
    /** True if the address changes with root stage loop j. */
    bool depends_on(int j) const {
        for (size_t p = 0; p * root_loops < jac.size(); p++) {
            double v = at(int(p), j);
            if (std::isnan(v) || v != 0) return true;
        }
        return false;
    }
};

/** How a load's address moves along the vector loop `vloop` (-1: none) of a stage with `K`
 * loops: not at all (`zero`: a broadcast), one element a lane along the producer's innermost
 * dimension (`unit`: a dense load), or a short constant stride Halide 14 reads as dense
 * vectors and shuffles (`short_stride` > 0: that many dense loads a vector; 0: a gather). */
struct VectorAccess {
    bool zero = true, unit = true;
    double short_stride = 0;
};
VectorAccess vector_access(const EffLoad &l, int vloop, int K);

/** The clamps of one index of a load, seen from a non-inlined stage: `count` min/max per
 * point, moving with the root stage loops j where `moves[j]`. */
struct IndexClamp {
    LoopSet moves;
    double count;
    bool likely;
    /** The clamped coordinate feeds two or more loads of the Func it indexes (inlined):
     * `repeat_edge` over `f(x) = in(2x) + in(2x + 1)`. Halide 14 hoists such a clamp into one
     * `let` the loads share, and its loop partitioning keeps that `let` in every iteration,
     * steady state included: the loads' lanes gather (bench chroma_420; one load per clamp
     * keeps a steady loop reading `in[ramp(...)]`: bench/experiments/partition_steady_state). */
    bool shared = false;
    /** Shared, every load it feeds reads a Func computed at a loop of the clamped stage's Func,
     * and the clamped coordinate moves by whole elements with the stage's loops: then the
     * steady state of that Func's split outer loop drops the clamp (partition_steady_state's
     * `sc2.cpp`: `f(x) = g(2x) + g(2x + 1)` with `g` computed per 128-column tile reads
     * `g[ramp(t * 2, 2, 16)]` there; reading the input, every part gathers; so does bench
     * chroma_420's `cb_x` reading such a buffer through `repeat_edge(x / 2)`, 13.8 ms against
     * 6.4). */
    bool reads_inside = false;
};

/** What a stage reads and computes per point once its inlined producers are substituted.
 * Loads alike in all but their offsets (same producer, Jacobian and clamps: a stencil's taps)
 * are one entry whose count is theirs summed, as are alike clamps: every feature is linear in
 * the counts. */
struct StageLoads {
    std::vector<EffLoad> loads;
    std::vector<IndexClamp> clamps;
    double ops = 0;   // arithmetic per point, op_kind_cost units (arith_ops)
    double trans = 0; // scalarized transcendental calls per point, one lane's (see below)
};

/** A sliding window computes only the new points of each step, but a stage loop split along
 * the dimension it slides in runs whole tiles (split_slide_rounding in StageLoads.cpp): the
 * factor by which that multiplies the points a storage realization computes (1: none). */
double split_slide_rounding(const StageSched &ss, const Stage &s, const FuncNest &fn);

/** A split whose tile does not divide the loop's extent per realization computes whole tiles:
 * Halide's ShiftInwards runs the last tile shifted back over points already computed, RoundUp
 * computes past the end (search/Tails.h; a GuardWithIf tail does not). Bench box_blur: `rows`
 * computed per 16-row strip of `output` needs 18 rows, split by 16 it runs `for (y_o, 0, 2)`
 * of 16 rows each (`-e stmt`), 32 rows for 18. The factor by which the splits multiply the
 * stage's points per realization (1: none); the band of a banded split is its tile here. */
double split_rounding(const Stage &s, const StageSched &ss, const Box64 &loop_box);
/** The share of a sliding window's points that Halide computes with every index clamp in
 * place. A Func sliding inside another's loops (Placement::At, FuncNest::sliding) is computed
 * in the copies of the first and last iterations of the outermost consumer loop, outside its
 * storage, that a `likely` clamp of its moves with; Halide's loop partitioning keeps those
 * copies whole and partitions only the steady state again. Bench box_blur's `rows`, sliding
 * down strips of 256 rows with its input clamped in x and y, ran 0.71 ms against 0.39 in
 * strips of 64 rows and 0.34 in strips of 32, the same code but for the trip counts (`-e
 * stmt`: the first and last strip gather every vector). Each such loop of n iterations
 * contributes 2 / n (the Func's loop and the consumer's are matched by name). Only sliding
 * Funcs: a window's halo along the sliding dimension is where a boundary clamp binds, and the
 * DAG does not say whether another Func's clamps ever bind (bench interpolate's `up_0` reads
 * the clamped input pointwise; charging it ran the pick 1.67x slower). 0 for any other Func
 * (op_features prices a root Func's own loops). */
double clamp_edge_share(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                        const Stage &s, const std::vector<IndexClamp> &clamps);

/** The loads of `s` (a stage of a Func that is not inlined) under decisions `d`. An inlined
 * Func reached along several paths with the same Jacobian (a stencil of a stencil) is walked
 * once: the walk is linear in the inlined graph, not in its paths. */
StageLoads collect_stage_loads(const PipelineDag &dag, const Decisions &d, const Stage &s);

} // namespace sextant
