// Polish: local steps taken from the search's pick after the beam has ended, each kept only
// where the cost model predicts the whole schedule cheaper by a margin. They change one
// stage's shape without moving any Func, so they cannot crowd the beam the way offering them
// at every step does (docs/SEARCH.md, "Polish: a loop unrolled inside the vectors, after the
// beam").
#pragma once

#include "search/SearchSpace.h"
#include "search/State.h"

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

} // namespace sextant
