// ModelChoice: the one place that turns a cost-model choice ("analytical", or "learned" with a
// weights path) into a CostModel, for the plugin, the sampler and the tools alike. How learned
// weights are loaded depends on the program and is chosen when it is linked, not by macros
// (costmodel/LearnedModel.h).
#pragma once

#include "costmodel/LearnedModel.h"
#include "dag/PipelineDag.h"
#include "search/Candidates.h"

#include <memory>
#include <string>

namespace sextant {

/** The shipped weights: installed beside the share/ directory of the binary holding this code,
 * else the source tree's weights/sextant.sxw. */
std::string default_weights_path();

/** `name` "analytical" gives the analytical model; anything else (Params checks it is
 * "learned") the learned model of `weights`: a file, or a directory holding sextant.sxw;
 * empty means default_weights_path(). The file may be an ensemble weights file
 * (costmodel/WeightsFile.h): the EnsembleModel of the members it names, with its caution.
 * Several paths separated by commas make a cautious EnsembleModel of them (it believes the
 * members' slower opinions); a member named "analytical" is the analytical model. Throws
 * UserError when the weights are missing or bad, or when the program has no learned model. */
std::unique_ptr<CostModel> make_cost_model(const std::string &name, const std::string &weights,
                                           const MachineInfo &machine);

/** The learned model's pick as the plugin makes it (SEXTANT_LEARNED_SEARCH=N) and the regret
 * judge and sampler reproduce it: the analytical model's searches with `opt` (its `first`
 * options; beam-1 dropout searches, as the sampler's candidates the model learned from) propose
 * `count` distinct schedules and `rank` (the learned model's evaluator) chooses one whole
 * (ranked_pick). */
RankedPick rank_analytical_candidates(const PipelineDag &dag, const SearchSpace &space,
                                      StateEvaluator &rank, int count,
                                      const CandidateSearchOptions &opt,
                                      SearchStats *stats = nullptr);

} // namespace sextant
