#include "Candidates.h"

#include "SampleStore.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "plugin/dag/Errors.h"
#include "plugin/search/Candidates.h"
#include "plugin/search/SearchSpace.h"

#ifdef SEXTANT_HAVE_TORCH
#include "costmodel/TrainableCostModel.h"
#endif

namespace sextant {

std::vector<Candidate> make_candidates(const PipelineDag &dag, const CandidateOptions &opt,
                                       const std::string &weights) {
    std::unique_ptr<CostModel> owned;
    if (weights.empty()) {
        owned = std::make_unique<AnalyticalModel>(dag.machine.parallelism,
                                                  double(dag.machine.last_level_cache_bytes));
    } else {
#ifdef SEXTANT_HAVE_TORCH
        owned = load_torch_cost_model(weights, dag.machine.parallelism,
                                      double(dag.machine.last_level_cache_bytes), 1);
#else
        throw UserError("--weights needs a Sextant built with LibTorch (SEXTANT_WITH_TORCH=ON)");
#endif
    }
    CostModel &model = *owned;
    SearchSpace space(dag);
    std::vector<Candidate> out;
    for (SearchCandidate &s : search_candidates(
             dag, space, [&] { return std::make_unique<ModelEvaluator>(dag, model); }, opt)) {
        Candidate c;
        c.source = (weights.empty() ? "" : "learned:") + s.source;
        c.text = std::move(s.text);
        c.hash = schedule_hash(c.text);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace sextant
