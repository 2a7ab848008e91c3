// Directives: a schedule as the list of Halide scheduling calls that realise it, in the order
// they must be made. Plain data, so both the Halide applier and the schedule-source printer
// consume the same list (they cannot disagree), and tests need no Halide.
#pragma once

#include "dag/PipelineDag.h"
#include "search/Schedule.h"
#include "search/Tails.h"

#include <string>
#include <vector>

namespace sextant {

struct LoopVar {
    std::string name;
    bool is_rvar = false;
};

struct Directive {
    enum class Kind {
        ComputeInline,
        ComputeRoot,
        ComputeAt,
        StoreAt,
        StoreInStack,
        /** The Func stored in the order of `vars`, innermost first (FuncNode::dims of a Func
         * whose storage_reordered is set). */
        ReorderStorage,
        Split,
        Reorder,
        Vectorize,
        Unroll,
        Fuse,
        Parallel,
        /** The stage's outermost RVar vars[0] split into vars[1] (bands) and vars[2] (`factor`
         * points each), factored into a new Func over the bands' Var vars[3]
         * (`rfactor(vars[1], vars[3])`), computed at root, its update parallel over vars[3]
         * (StageSched::rfactor). */
        Rfactor
    };
    Kind kind;
    int func = -1;
    int stage = 0;
    /** Split: {old, outer, inner}; Fuse: {inner, outer, fused}; Reorder: innermost first;
     * others: the loop. */
    std::vector<LoopVar> vars;
    int at_func = -1;   // ComputeAt/StoreAt: the consumer
    int64_t factor = 0; // Split/Vectorize/Unroll; Unroll with 0 unrolls the whole loop
    /** Split/Vectorize/Unroll: the tail asked for (ShiftInwards is Halide's default for a pure
     * definition and is not spelled out). */
    Tail tail = Tail::ShiftInwards;
};

/** Name of a concrete loop as the directives create it. */
std::string loop_var_name(const Stage &s, const StageSched &sched, int stage_loop, bool outer_part,
                          bool band_part = false);

/** How many of the outermost loops of stage (func, stage) are fused into one parallel loop:
 * its parallel prefix when that is two loops or more and no Func is computed or stored at
 * any of them but the innermost (0 otherwise: the loops stay nested, each parallel). One
 * flat loop of all the tasks instead of a parallel loop per task of the outer one. */
int fused_parallel_loops(const PipelineDag &dag, const Decisions &d, int func, int stage);

/** The calls that apply `d` (complete) to the pipeline, producers first. */
std::vector<Directive> make_directives(const PipelineDag &dag, const Decisions &d);

} // namespace sextant
