// Helpers SearchSpace's source files share (SearchSpace.cpp, SearchRetilings.cpp). Internal to
// search.
#pragma once

#include "dag/PipelineDag.h"
#include "search/State.h"

#include <cstdint>

namespace sextant::detail {

/** Hash of one Func's decisions (its placement key and every stage's tiling). */
uint64_t hash_sched(const FuncSched &fs);

/** Halide 14 miscompile (StridedLoadHazard.cpp): true if computing `func` at `level` of stage
 * `stage` of `c` leaves a load with stride 2-4 along the vector from its buffer with a constant
 * index, which Halide 14 gives an alignment it does not have. */
bool strided_load_hazard(const PipelineDag &dag, const State &s, int func, int c, int stage,
                         int level);

} // namespace sextant::detail
