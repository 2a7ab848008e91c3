#include "Candidates.h"

#include "SampleStore.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "plugin/search/Candidates.h"
#include "plugin/search/SearchSpace.h"

namespace sextant {

std::vector<Candidate> make_candidates(const PipelineDag &dag, const CandidateOptions &opt) {
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    SearchSpace space(dag);
    std::vector<Candidate> out;
    for (SearchCandidate &s : search_candidates(
             dag, space, [&] { return std::make_unique<ModelEvaluator>(dag, model); }, opt)) {
        Candidate c;
        c.source = std::move(s.source);
        c.text = std::move(s.text);
        c.hash = schedule_hash(c.text);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace sextant
