// SampledSchedules: the distinct schedules the sampler measures for one pipeline
// (search/Candidates.h: the beam-search best, the greedy one, then searches with random
// dropout under successive seeds, deduplicated by ScheduleText), scored with the model it is
// told to use. Deterministic: the same DAG and options give the same list in the same order
// (so a resumed run asks for the same schedules). No Halide.
//
// The sampler's defaults for CandidateSearchOptions are the plugin's beam 32 / 5 passes for
// the first ("beam") candidate, so the data holds the schedules the plugin picks (about 2 s of
// search per default-sized random pipeline, amortized over `count` measurements; beam 8 / 2
// passes takes 0.2 s but often gives a 2-5x slower schedule, see docs/SAMPLING.md), then
// greedy searches with random dropout (beam 1, as Adams2019's autotuning loop samples).
#pragma once

#include "dag/PipelineDag.h"
#include "search/Candidates.h"

#include <string>
#include <vector>

namespace sextant {

/** Up to opt.count distinct candidates for `dag`, scored with the analytical cost model, or
 * with the learned model of `weights` if given (then every source is prefixed "learned:").
 * Data whose schedules only one model chose teaches a model nothing about the schedules the
 * other would pick; sampling with the current weights adds exactly those (on-policy data).
 * Searches that find no schedule are skipped. With weights and opt.ranked > 0: the one
 * schedule the learned model picks among opt.ranked analytical candidates (ranked_pick). */
std::vector<SearchCandidate> make_candidates(const PipelineDag &dag,
                                             const CandidateSearchOptions &opt,
                                             const std::string &weights = "");

} // namespace sextant
