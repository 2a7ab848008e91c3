// Tails: how a split of a stage loop handles the points past the last whole tile, as the
// directives ask Halide for it. A property of the pipeline, not of the search state, so the
// search space (which widths it may vectorize) and the directives (what they emit) agree.
#pragma once

#include "dag/PipelineDag.h"
#include "search/Schedule.h"

#include <utility>

namespace sextant {

enum class Tail {
    /** Halide's default for a pure definition: the last tile shifts inwards. */
    ShiftInwards,
    /** The Func's region grows to whole tiles (bounds inference computes the extra points). */
    RoundUp,
    /** The inner loop is guarded by an `if` past the end. */
    GuardWithIf,
};

/** The tail of a split of loop `loop` of stage `stage` of `func`:
 *  - pure definitions: ShiftInwards;
 *  - RVars of updates: GuardWithIf (rounding up would change the reduction);
 *  - pure vars of updates: RoundUp when the Func is not an output (its buffer would have to be
 *    a multiple of the tile) and computing it over more points along that dimension reads no
 *    input or output Func outside the region the pipeline reads anyway (inputs read through a
 *    boundary condition or a clamp); else GuardWithIf. */
Tail split_tail(const PipelineDag &dag, int func, int stage, int loop);

/** `region` of `func` grown as Halide computes its pure definition: a split of it shifts its
 * last tile inwards, so along a dimension narrower than the split's step (its band, or its
 * tile) the whole step is computed and stored, starting before the region (bench interpolate:
 * `down_x_1` split by 32 rows inside 8-row strips of its consumer, which need 17, computed 32
 * rows a strip and ran 1.6x the pick's time, priced as the same schedule unsplit). Output
 * Funcs keep their region (Halide asks the output buffer for the step). */
Box64 shifted_in_region(const PipelineDag &dag, const FuncSched &fs, int func, Box64 region);
inline Box64 shifted_in_region(const PipelineDag &dag, const Decisions &d, int func, Box64 region) {
    return shifted_in_region(dag, d[size_t(func)], func, std::move(region));
}

/** Fills every stage's Stage::rounds_up from split_tail, every Func's
 * FuncNode::read_through_clamp from read_through_moving_clamp and FuncNode::fixed_region from
 * its consumers' footprints (the DAG builder calls it, after PipelineDag::link). */
void annotate_tails(PipelineDag &dag);

/** True if realizing `func` over a region grown along `dim` makes the region it needs of some
 * input or output Func larger (computed through every producer, each as if realized): those
 * buffers are the user's and do not grow. */
bool growth_reads_inputs_outside(const PipelineDag &dag, int func, int dim);

/** True if `func` reads an input (or output) Func's fixed buffer without clamping the index
 * itself along some dimension, and a consumer reads `func` through a clamp along that same
 * dimension. At the image's edge that clamp shrinks the region asked of `func` below a tile;
 * Halide's ShiftInwards split or vector loop then moves the tile back over points before the
 * region, and `func` reads the buffer before its start (session 52: bilateral_guided_
 * upsampling's `lambda_0` at `repeat_edge`, "Input buffer low_in is accessed at -2"). Such a
 * Func is computed at root or inlined, never inside a consumer's loops. A Func whose grown
 * region reads more of an input but inside its buffer (InputNode::buffer, the estimates: the
 * random pipelines' guards clamp to the image and may be asked for 8 of its 357 columns) is
 * not one. */
bool shrinks_at_edges(const PipelineDag &dag, int func);

/** True if a consumer reads `func` through a clamp of an index that moves with the consumer's
 * loops. Halide's region of `func` inside a consumer's tile is then min/max expressions, not a
 * constant it can see, and a loop over that region unrolled runs to the expressions' constant
 * upper bound, each copy guarded: random pipeline 3021's register tile of 8 x 3 rows inside a
 * 16 x 8 x 3 tile, read through `clamp_coords`, unrolled to 23 guarded rows and 6,440 copies of the
 * vector loop in all (a 9 MB statement that LLVM did not compile in 5 minutes). A table lookup (the
 * index is loaded data) clamps to constant bounds and is not one. */
bool read_through_moving_clamp(const PipelineDag &dag, int func);

} // namespace sextant
