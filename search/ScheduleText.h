// ScheduleText: a stable, human-readable serialization of a schedule's decisions. Samples store
// it, so a new featurizer can re-featurize old measurements; parsing it against the same
// PipelineDag gives back the identical Decisions (and so the identical LoopNest).
//
//   sextant-schedule 1
//   func blur_y root
//     stage 0 loops x:split64 y:split128/8 vector 8 unroll 1 parallel 1
//   func blur_x at blur_y 1 store 0
//     stage 0 loops x:inner y:inner vector 8 unroll 1 parallel 0
//   func clamped inline
//
// Funcs are listed in the search's order, outputs first and each Func before its producers.
// A stage's loops are listed in the stage's own dimension order, innermost first as Halide
// orders them (x before y; an update's RVars before its pure variables) — where each loop
// ends up in the nest is what its mode says (Schedule.h), not its place in this list — as
// `name:inner|outer|middle|splitT|splitB/T`:
// splitT cuts the loop into tiles of T (outer part in the outer group), splitB/T into strips
// of B points, bands and tiles of T (multi-level; B a multiple of T). An update may split its
// outermost RVar (splitT), the others then `middle`. A Func computed inside an update stage of
// its consumer says which: `func T at S 0 update 1`; one whose constant-size buffer lives on
// the stack ends with `stack`: `func g at f 1 stack`. A stage line may end with `unroll_outer`
// (the loop just outside the innermost one fully unrolled) or `unroll_outer N` (the N loops
// outside it: a register tile), then `rfactor` (a factored reduction: StageSched::rfactor).
// Levels (`at S 1`) count the consumer's
// loops outermost first, as make_stage_nest orders them.
#pragma once

#include "dag/PipelineDag.h"
#include "search/Schedule.h"

#include <string>

namespace sextant {

std::string to_schedule_text(const PipelineDag &dag, const Decisions &d);

/** Throws UserError naming the line if the text does not fit `dag`. */
Decisions parse_schedule_text(const PipelineDag &dag, const std::string &text);

/** A schedule's identity in samples and autotuning directories: 16 lower-case hex digits of
 * the FNV-1a-64 hash of its text. */
std::string schedule_hash(const std::string &text);

} // namespace sextant
