// Helpers SearchSpace's source files share (SearchSpace.cpp, SearchRetilings.cpp). Internal to
// plugin/search.
#pragma once

#include "plugin/dag/PipelineDag.h"
#include "plugin/search/State.h"

#include <cstdint>

namespace sextant::detail {

/** Hash of one Func's decisions (its placement key and every stage's tiling). */
uint64_t hash_sched(const FuncSched &fs);

/** Halide 14 miscompile (sextant-fuzz seed 186): true if computing `func` at `level` of stage
 * `stage` of `c` gives strided loads from its constant-size buffer constant indices in a
 * ShiftInwards vector tail (see SearchSpace.cpp). */
bool strided_tail_hazard(const PipelineDag &dag, const State &s, int func, int c, int stage,
                         int level);

} // namespace sextant::detail
