// Polish: local steps taken from the search's pick after the beam has ended, each kept only
// where the cost model predicts the whole schedule cheaper by a margin. They change one
// stage's shape without moving any Func, so they cannot crowd the beam the way offering them
// at every step does (docs/SEARCH.md, "Polish: a loop unrolled inside the vectors, after the
// beam").
#pragma once

#include "search/SearchSpace.h"
#include "search/State.h"

#include <functional>
#include <string>
#include <vector>

namespace sextant {

struct PolishStats {
    int tried = 0;                  ///< states scored
    int kept = 0;                   ///< steps kept
    std::vector<std::string> steps; ///< per step tried: "func.stage gain%"
};

/** `best` with, stage by stage in search order, its short pure loop moved inside its vectors
 * (StageSched::unrolled_inside) wherever the rules and unrolled_inside_fits_registers allow
 * it and `eval` predicts the whole schedule at least `margin` (a fraction) cheaper with it;
 * `best` itself if no step is. */
StatePtr polish_unrolled_inside(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                                double margin, PolishStats *stats = nullptr);

/** How much dearer (a fraction of the whole schedule's predicted cost, all steps together)
 * polish_narrowed may make the pick. */
constexpr double kNarrowedTolerance = 0.02;
/** The body polish_narrowed narrows: its work per point (OpHistogram::work, inlined Funcs
 * included: detail::expanded_work) x the vector registers a value of the stage's widest type
 * takes over the lanes in flight (SearchSpace::stage_copies), at least this. */
constexpr double kNarrowedBodyWork = 1024;

/** `best` with, stage by stage in search order, a large vectorized body narrowed: vectors of
 * one register of the Func's type (SearchSpace's widest offer, at most 32 lanes), nothing
 * unrolled around them (a register tile, several loops unrolled, stays), wherever the whole
 * schedule stays within `tolerance` of the pick's predicted cost. The model prices what
 * wider and unrolled vectors share (loads, loop overhead), not what a large body pays for
 * them: registers spilled, and loads the DAG reads as broadcasts that Halide scalarizes.
 * Bench bilateral_guided_upsampling's `output` (the 12 affine coefficients sliced from 8
 * gathered grid corners inlined, 74 operations per coefficient) at 32 lanes unrolled twice
 * by two rows was predicted 1.4% cheaper than at 16 lanes and ran 1.3x slower (75 against
 * 57 ms, 5 interleaved rounds). Small bodies are left: narrowed, some ran slower
 * (max_filter's windows 1.14x, histogram_equalize's uint8 output 1.07x). */
StatePtr polish_narrowed(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                         double tolerance, PolishStats *stats = nullptr);

/** How much dearer (a fraction of the whole schedule's predicted cost, all steps together)
 * polish_row_sweeps may make the pick. */
constexpr double kRowSweepsTolerance = 0.02;

/** `best` with, stage by stage in search order, column strips walked in rows: a stage whose
 * innermost loop is the inner part of its split dense dimension (x), with the next dimension
 * (whole, or its inner part) right outside, sweeps part of a row and starts again one row
 * down. Its variants walk whole rows: x not split (one outer loop fewer) or, with y whole,
 * also y split into strips of 8-128 rows (the outer loops, a parallel one, keep their number).
 * The cheapest is kept where the whole schedule stays within `tolerance` of the pick's
 * predicted cost. Each restarted sweep pays its first lines' latency before the hardware
 * prefetcher follows, which no term prices (docs/COSTMODEL.md, "Stream restarts"): bench
 * histogram_equalize's `output` and `luma`, 256- and 64-wide column strips over all rows, ran
 * 0.82x in 128-row strips, predicted 0.3% cheaper (Intel Xeon; docs/SEARCH.md). A sliding
 * stage's one row cut into chunks, made whole, ran 0.78-0.85x (stencil_chain, _32). Stages
 * with Funcs computed at them, unrolled outer loops or a factored reduction are left. */
StatePtr polish_row_sweeps(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                           double tolerance, PolishStats *stats = nullptr);

/** `best` with Funcs inlined, one at a time in search order, wherever the whole schedule is
 * predicted at least `margin` cheaper for it; the Funcs computed at one move to where it was
 * computed (bench local_laplacian's `colour`, with the finest blend and upsample at it: 0.96-
 * 0.99x). The beam
 * decides placements coarse to fine, consumers first, and keeps each placement's states only
 * while they rank among the beam: bench interpolate's pick stored `down_x_1` per strip of
 * `down_1`, predicted 36.2 ms, 34.1 with it inlined (32.7 once the unrolling polish then moved
 * `down_1`'s channels inside its vectors; it ran 0.79x). */
StatePtr polish_inlined(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                        double margin, PolishStats *stats = nullptr);

/** The cheapest of `states` (the search's pick first, then others to start from: the last
 * pass's beam) with one pure loop of one root Func split finer (a power of two from 8 up,
 * below its tile, and on the vector loop no fewer than its vector width x unrolling; stages
 * with unrolled outer loops are left), each scored whole; the pick
 * itself unless a variant is `margin` cheaper than it. A strip loop's first and last
 * iterations run a sliding window with every clamp (clamp_edge_share), which the search sees
 * only once the clamped Funcs are decided, its last steps: bench harris' 64-row strips are
 * 1-2% dearer than 256-row ones at every step before (docs/SEARCH.md). Only finer: coarser
 * strips leave cores idle, which the model prices loosely (stencil_chain_32's 512-row
 * strips, predicted 1.9% cheaper, ran 1.09x). */
StatePtr polish_root_splits(const SearchSpace &space, StateEvaluator &eval,
                            const std::vector<StatePtr> &states, double margin,
                            PolishStats *stats = nullptr);

/** How much dearer (a fraction of the whole schedule's predicted cost, all steps together)
 * polish_storage_order may make the pick: the search's own "near" (SearchOptions' near_cost), costs
 * it counts as equal. */
constexpr double kStorageOrderTolerance = 1e-4;

/** `best` with, one loop at a time in search order, a whole pure loop the search moved to its
 * stage's outer group (LoopMode::Outer) put back in storage order (LoopMode::Inner), wherever
 * the whole schedule stays within `tolerance` of the pick's predicted cost (a loop already
 * outermost of its kind is left: putting it back changes no loop's place). A reorder the model
 * prices as a tie buys nothing it can see and may cost what it cannot: bench resize_bicubic's
 * `vertical` looping its rows outside its channels (`y:outer`, 3.6e-6 dearer) ran 1.15x
 * (21.3 against 18.5 ms, 5 interleaved rounds); Halide's storage order streams each plane.
 * Stages with Funcs computed at them, unrolled outer loops or a factored reduction are left. */
StatePtr polish_storage_order(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                              double tolerance, PolishStats *stats = nullptr);

/** The polishes in order, as the plugin runs them on its pick: Funcs inlined, then finer splits
 * of root Funcs (from the inlined pick and from `others`, e.g. the last pass's beam), then
 * column strips walked in rows (within kRowSweepsTolerance), then large bodies narrowed
 * (within kNarrowedTolerance), then loops unrolled inside the vectors, then loops put
 * back in storage order (within kStorageOrderTolerance);
 * each other step kept only `margin` cheaper. `log` (optional)
 * gets one line per polish: how many steps it kept of how many it scored, and the costs. */
StatePtr polish_pick(const SearchSpace &space, StateEvaluator &eval, StatePtr pick,
                     const std::vector<StatePtr> &others, double margin,
                     const std::function<void(const std::string &)> &log = {});

} // namespace sextant
