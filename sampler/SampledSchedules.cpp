#include "SampledSchedules.h"

#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "plugin/ModelChoice.h"
#include "search/Candidates.h"
#include "search/SearchSpace.h"

namespace sextant {

std::vector<SearchCandidate> make_candidates(const PipelineDag &dag,
                                             const CandidateSearchOptions &opt,
                                             const std::string &weights) {
    std::unique_ptr<CostModel> model =
        make_cost_model(weights.empty() ? "analytical" : "learned", weights, dag.machine);
    SearchSpace space(dag);
    if (!weights.empty() && opt.ranked > 0) {
        ModelEvaluator rank(dag, *model);
        RankedPick rp = rank_analytical_candidates(dag, space, rank, opt.ranked, opt);
        if (rp.chosen < 0) return {};
        SearchCandidate c = rp.candidates[size_t(rp.chosen)];
        c.source = "ranked:" + c.source;
        c.state.reset();
        return {c};
    }
    std::vector<SearchCandidate> out = search_candidates(
        dag, space, [&] { return std::make_unique<ModelEvaluator>(dag, *model); }, opt);
    for (SearchCandidate &c : out) {
        if (!weights.empty()) c.source = "learned:" + c.source;
        c.state.reset(); // the states hold the model's evaluator data; the text is the schedule
    }
    return out;
}

} // namespace sextant
