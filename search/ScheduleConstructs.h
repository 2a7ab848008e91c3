// schedule_constructs: the kinds of placement and tiling a complete schedule uses, named for
// fuzz and test reports and the plugin's result.
#pragma once

#include "search/Schedule.h"

#include "dag/PipelineDag.h"

#include <string>
#include <vector>

namespace sextant {

/** The kinds of placement and tiling a complete schedule uses, for fuzz and test reports:
 * "nested" (computed inside a Func that is itself computed inside another), "beside" (in the
 * Func that holds its consumers, not in a consumer), "walk_up" (further out than that: at a
 * loop of a Func two or more levels above its consumers), "sliding" (and "sliding_split" when
 * it slides over the inner part of a split), "stack", "in_update" (inside an update stage's
 * loops), "band" (a three-level split), "reduction_split" (a split RVar), "round_up" (an
 * update split with a RoundUp tail), "fused_parallel" (parallel loops fused into one),
 * "rfactor" (a factored reduction). Each
 * kind is listed once. */
std::vector<std::string> schedule_constructs(const PipelineDag &dag, const Decisions &d);

} // namespace sextant
