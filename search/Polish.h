// Polish: local steps taken from the search's pick after the beam has ended, each kept only
// where the cost model predicts the whole schedule cheaper. They change one stage's shape
// without moving any Func, so they cannot crowd the beam the way offering them to every step
// does (docs/SEARCH.md, "A short loop unrolled inside the vectors").
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
 * (StageSched::unrolled_inside) wherever the rules allow it and `eval` predicts the whole
 * schedule cheaper with it; `best` itself if no step is cheaper. */
StatePtr polish_unrolled_inside(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                                double margin, PolishStats *stats = nullptr);

} // namespace sextant
