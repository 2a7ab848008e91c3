// LoopNest: the concrete loops a schedule gives each stage — realization counts, the region
// computed per realization, and the final loop order with extents and loop kinds. Derived from
// Decisions (never edited directly); built Func by Func, consumers before producers, so a
// child state shares every FuncNest of its parent but the one it decides.
#pragma once

#include "dag/PipelineDag.h"
#include "search/Schedule.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sextant {

struct ConcreteLoop {
    int stage_loop = -1;     // index into Stage::loops
    bool outer_part = false; // the outer part of a split, or an Outer-mode loop
    int64_t extent = 1;      // iterations
    int64_t span = 1;        // points of the stage loop covered by one iteration
    bool parallel = false;
    bool vectorized = false; // the innermost loop; iterations are vectors of `vector_width`
    bool unrolled = false;   // fully unrolled (one of StageSched::unroll_outer's loops)
    bool band_part = false;  // the middle part of a split with a band (LoopTiling::band)
};

struct StageNest {
    int func = -1, stage = -1;
    Box64 loop_box;                  // stage loop iterations per realization (innermost first)
    SmallVec<ConcreteLoop, 8> order; // outermost first (inline: one per child the search makes)
    int vector_width = 1;
    int unroll = 1;
    int64_t parallel_tasks = 1; // product of this stage's parallel loop extents
};

struct FuncNest {
    int func = -1;
    Box64 region;                 // storage region per realization
    double realizations = 1;      // how many times the region is computed
    bool inside_parallel = false; // computed inside a consumer's parallel loop
    /** Storage: the region allocated per storage realization and how many of those there
     * are. Equal to region/realizations unless store_level is further out than at_level. */
    Box64 store_region;
    double store_realizations = 1;
    /** Points allocated per storage realization: the storage region's, or less where Halide
     * folds a sliding window's storage into a ring buffer. */
    double alloc_points = 0;
    /** The most points any storage realization allocates: alloc_points, or more where the
     * region's hull grows across the loops around it (checked against Halide's buffer size
     * limit; priced at alloc_points). */
    double max_alloc_points = 0;
    bool sliding = false;
    /** The storage region's size does not depend on the pipeline's input or output sizes,
     * so Halide sees a constant-size allocation: every consumer loop inside the storage
     * level that shapes it is the inner part of a split (or the consumer's own region is
     * constant). Root buffers never are (their size comes from the estimates). */
    bool constant_size = false;
    std::vector<StageNest> stages;
};

using NestPtr = std::shared_ptr<const FuncNest>;
/** One entry per Func id; null for inlined or undecided Funcs. */
using Nests = SharedChunks<NestPtr>; // one per Func (null: none); write with set()

/** A (func, stage) pair. */
using StageRef = std::pair<int, int>;
/** A few (func, stage) pairs, inline (a Func's consumers: one per child the search makes). */
using StageRefs = SmallVec<StageRef, 8>;

/** True if the Func is inlined in this schedule (input wrappers always are). In the header:
 * the featurizer asks it for every load of every candidate. */
inline bool is_inlined(const PipelineDag &dag, const Decisions &d, int func) {
    return d[size_t(func)].placement == Placement::Inline ||
           dag.funcs[size_t(func)].is_input_wrapper;
}

/** The Func whose loops hold `func` at the outermost: `func` itself unless it is computed at
 * a consumer, else that consumer's root anchor. */
int root_anchor(const Decisions &d, int func);

/** True if `func` has loops of its own (at root or computed at a loop) that a rewrite may
 * reorder or retile: no other Func is computed at one of them (it keeps the loop it is
 * computed at). */
bool loops_may_move(const Decisions &d, int func);
/** root_anchor of every Func, into `out` (one walk per chain, not per Func). */
void root_anchors(const Decisions &d, std::vector<int> &out);

/** The non-inlined stages that read `func`, directly or through inlined Funcs. */
StageRefs effective_consumers(const PipelineDag &dag, const Decisions &d, int func);

/** Adds to `acc` the region of `target` needed by `consumer` stage iterating over
 * `loop_box`, looking through inlined Funcs. `target` may be a Func or an input. */
void required_region(const PipelineDag &dag, const Decisions &d, StageRef consumer,
                     const Box64 &loop_box, ProducerKind kind, int target, Box64 *acc);

/** The region of a producer (Func or input) a stage reads, through inlined Funcs. */
struct ProducerRegion {
    ProducerKind kind;
    int producer;
    Box64 region;
};
/** required_region for every producer `consumer` reads at once (one walk through the inlined
 * Funcs instead of one per producer); none for the inlined Funcs themselves. */
std::vector<ProducerRegion> required_regions(const PipelineDag &dag, const Decisions &d,
                                             StageRef consumer, const Box64 &loop_box);
/** The region of `producer` in `regions`, or null if the stage does not read it. */
const Box64 *find_region(const std::vector<ProducerRegion> &regions, ProducerKind kind,
                         int producer);

/** Stage loop box when the stage's Func region is `region` (RVars keep their full range). */
Box64 stage_loop_box(const Stage &s, const Box64 &region);

/** `region` of `func` grown as Halide allocates it: an update's split with a RoundUp tail
 * (Stage::rounds_up) runs whole tiles, so the Func's buffer along that dimension grows to a
 * multiple of the tile (of the band, with one). Bench max_filter: `maximum`'s update split by
 * 12 rows allocates 36 rows for a 32-row strip, and its producer `table` holds what those read
 * (a malloc log shows 216 and 1,828 KiB where 32 rows give 192 and 1,706). Used for
 * FuncNest::alloc_points only: the work stays the region's (docs/COSTMODEL.md, Allocation). */
Box64 rounded_up_region(const PipelineDag &dag, const Decisions &d, int func, Box64 region);

/** True if a split of `fs` on an update's RoundUp loop grows `func`'s buffer
 * (rounded_up_region): its allocation then depends on the tiling, not only the placement. */
bool rounds_up_own_buffer(const PipelineDag &dag, const FuncSched &fs, int func);

/** The stage loop of `s`'s outermost RVar, -1 if it has none. */
int outermost_rvar(const Stage &s);

/** Why stage `stage` of Func `func` cannot be factored as `ss` says (StageSched::rfactor):
 * the stage must be an update Halide can factor (Stage::can_rfactor) with no pure loop over
 * more than one point, its outermost RVar split into two or more bands, its other RVars
 * middle, parallel 1, no vectors or unrolling. "" if it can. (The Func must also be Root.) */
std::string rfactor_problem(const PipelineDag &dag, int func, int stage, const StageSched &ss);

/** The factored tiling of stage `s` (rfactor_problem's shape) in `bands` bands of its
 * outermost RVar; a StageSched without loops if `s` has no RVar or `bands` < 2. */
StageSched rfactor_tiling(const Stage &s, int bands);

/** The loop of `s` that StageSched::unrolled_inside may move inside the vectors of `ss`
 * (unrolled_inside_problem's conditions but those on other Funcs), the outermost if several;
 * -1 if none. */
int unrolled_inside_loop(const Stage &s, const StageSched &ss);

/** Whether the copies of loop `loop` unrolled inside the vectors of `ss` keep the stage's
 * lanes in flight (vector width x unrolling x the loop's extent, in the stage's widest
 * arithmetic type) within kUnrolledInsideRegisters registers of `vector_bits`: the search and
 * the polish offer such a twin only then (a ScheduleText may still ask for more). */
bool unrolled_inside_fits_registers(const Stage &s, const StageSched &ss, int loop,
                                    int vector_bits);

/** Whether `s` gathers (reads at an index computed from loaded values) at an index that does
 * not move with its loop `loop`: unrolled inside the vectors, that loop's copies share the
 * gather (bench histogram_equalize's `lut(luma(x, y))`, the same for its three channels). */
bool shares_gather(const Stage &s, int loop);

/** A stage whose schedule breaks a rule, and why; func -1 if none does. */
struct StageProblem {
    int func = -1, stage = -1;
    std::string why;
};

/** The first stage of `d` (by Func id) whose StageSched::unrolled_inside breaks
 * unrolled_inside_problem's rules. */
StageProblem first_unrolled_inside_problem(const PipelineDag &dag, const Decisions &d);

/** Why stage `stage` of Func `func` cannot have loop `loop` moved inside its vector loop and
 * unrolled (StageSched::unrolled_inside) under decisions `d`: the loop must be pure, whole in
 * the inner group outside the vector loop, over 2 to kMaxUnrolledInside points, not parallel,
 * and no Func may be computed or stored at it or inside it; the stage vectorized, without a
 * register tile or rfactor. "" if it can. */
std::string unrolled_inside_problem(const PipelineDag &dag, const Decisions &d, int func, int stage,
                                    int loop);

/** Loop order of a stage under `sched` for a realization with loop box `loop_box`. */
StageNest make_stage_nest(const Stage &s, const StageSched &sched, const Box64 &loop_box);

/** Consumer loop box covered by one iteration of `consumer.order[level]`: the first
 * iteration of it and of every loop outside it, or with `middle`, the middle one of each. */
Box64 box_at_level(const StageNest &consumer, int level, bool middle = false);
/** The same within `loop_box` instead of the consumer's own. */
Box64 box_at_level(const StageNest &consumer, int level, bool middle, Box64 loop_box);

/** Builds the nest of a Root/At Func; its consumer's nest must be in `nests` already.
 * `placed`, if given, is the result of place_func_nest for the same placement (reused by
 * siblings that differ only in tiling, unless rounds_up_own_buffer: then placed again). */
NestPtr build_func_nest(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                        const FuncNest *placed = nullptr);

/** The placement part of a FuncNest (region, realizations, storage; no stages). */
void place_func_nest(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                     FuncNest *out);

/** All nests of a complete schedule (consumers built before producers). */
Nests build_all_nests(const PipelineDag &dag, const Decisions &d);

/** Region of `func` per realization if it were computed inside `level` of stage `at_stage` of
 * `at_func`: what `at_func` reads there plus what its consumers computed deeper in the same
 * loop read (at any depth: beside it in `at_func`, or nested in other Funcs inside it).
 * `allocated`, if given, receives the region Halide allocates for it there: grown by what
 * its consumers' RoundUp updates read past their regions and by its own updates' whole tiles
 * (rounded_up_region).
 * Halide computes the hull of what its consumers read in each iteration. The region has the
 * extents of the middle iteration of every loop around the Func, out to the root: the work
 * and the allocation of a typical iteration. Where the hull's size changes across the loops
 * (two consumers read it along different loops: one through a transpose, one directly; or
 * one reads a fixed range, one a moving window), the first iteration is no guide (random
 * pipeline 200127: a buffer whose hull grows from 10 to 289 planes had been priced at its
 * first, 10). Nor is it where a consumer reads the Func through a clamp at the pipeline's
 * edge: the first iteration's footprint is clamped (bench depthwise_separable_conv's
 * `lambda_0`, per 2-row tile of `constant_exterior`, was priced at the first tile's one row,
 * 14 KiB on the stack, and Halide allocated 28 KiB from malloc 228 times a run). */
Box64 region_at(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                int at_func, int at_stage, int level, Box64 *allocated = nullptr);

/** The region Halide allocates for `func` computed inside `level` of stage `at_stage` of
 * `at_func` (as region_at's `allocated`) at the last iteration of that loop and of every loop
 * around it, out to the root: where the hull grows across the loops, larger than the middle
 * iteration's. */
Box64 allocated_at_last(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                        int at_func, int at_stage, int level);

/** True if the region of `func` computed inside `level` (as region_at) differs between the
 * first two iterations of loop `order_index` (at or outside `level`) of that stage and the two
 * overlap: a window stored outside that loop slides along it, each iteration computing only
 * what the last did not. False for a loop of one iteration, a region that stays put, one
 * that jumps to disjoint points (a slice per iteration: nothing to slide), or one the loop
 * moves less far in all its iterations than the window is wide (Halide would rewind the loop
 * into one sliver per shift; computing it at the storage level is the same work). */
bool region_slides_along(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                         int at_func, int at_stage, int level, int order_index);

/** The region of `func` that the iterations of stage `at_stage` of `at_func` with loop box
 * `box` (one iteration of `level`, at some position) need: region_at's first step, at the
 * position given, without its middle-iteration extents. */
Box64 region_in_box(const PipelineDag &dag, const Decisions &d, int func, int at_func, int at_stage,
                    int level, const Box64 &box);

} // namespace sextant
