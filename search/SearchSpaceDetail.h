// Helpers SearchSpace's source files share (SearchSpace.cpp, SearchRetilings.cpp,
// ReplayChecks.cpp). Internal to search.
#pragma once

#include "dag/PipelineDag.h"
#include "search/State.h"

#include <cstdint>

namespace sextant::detail {

/** `measure` of stage `st` with every producer `d` inlines substituted (once per load),
 * summed up to `cap` (the walk stops once the sum passes it, so deep inline chains stay
 * cheap); `depth`: the recursion's. */
double expanded(const PipelineDag &dag, const Decisions &d, const Stage &st, double cap,
                double (*measure)(const Stage &), int depth = 0);

/** IR nodes of stage `st`'s definition with every inlined producer substituted (expanded). */
inline double expanded_nodes(const PipelineDag &dag, const Decisions &d, const Stage &st,
                             double cap) {
    return expanded(dag, d, st, cap, [](const Stage &s) { return double(s.ops.total()); });
}

/** The same in simple-instruction units (OpHistogram::work: a division 4, a transcendental
 * call 20, other operations 1). */
inline double expanded_work(const PipelineDag &dag, const Decisions &d, const Stage &st,
                            double cap) {
    return expanded(dag, d, st, cap, [](const Stage &s) { return s.ops.work(); });
}

/** Hash of one Func's decisions (its placement key and every stage's tiling). */
uint64_t hash_sched(const FuncSched &fs);

/** Halide 14 miscompile (StridedLoadHazard.cpp): true if computing `func` at `level` of stage
 * `stage` of `c` leaves a load with stride 2-4 along the vector from its buffer with a constant
 * index, which Halide 14 gives an alignment it does not have. */
bool strided_load_hazard(const PipelineDag &dag, const State &s, int func, int c, int stage,
                         int level);

/** For `func` at root: the first consumer (at root too) whose vector tail reads it with such
 * loads, both regions being constants Halide sees (FuncNode::fixed_region); -1 if none. */
int root_strided_load_hazard(const PipelineDag &dag, const State &s, int func);

/** For `func` just placed at root in `s` over a constant region: true if a stage's vector tail
 * reads a producer that cannot be inlined, its region constant too, with such loads. No
 * placement of that producer would then be safe; the search does not offer the tiling. */
bool strands_fixed_producer(const PipelineDag &dag, const State &s, int func);

/** The first Func of the complete state `s` whose placement leaves such loads, judged on its
 * final loop nests and every use (-1 if none). SearchSpace::replay refuses these; the beam
 * search drops them (SearchSpace::placements skips some of the checks on large pipelines). */
int first_strided_load_hazard(const PipelineDag &dag, const State &s);

/** Throws UserError, naming the schedule text's line, if the complete state `s` replayed from
 * `schedule_text` asks for what Halide 14 runs wrongly: an output's vectors and their unrolled
 * copies wider than the split part they are made of (Halide grows the loop past the end of the
 * user's buffer), or a strided_load_hazard. */
/** `root_or_inline`: per Func, shrinks_at_edges (Tails.h), as the SearchSpace caches it. */
void check_replayable(const PipelineDag &dag, const State &s, const std::string &schedule_text,
                      const std::vector<bool> &root_or_inline);

} // namespace sextant::detail
