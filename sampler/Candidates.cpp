#include "Candidates.h"

#include "SampleStore.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "plugin/search/BeamSearch.h"
#include "plugin/search/ScheduleText.h"
#include "plugin/search/SearchSpace.h"

#include <set>

namespace sextant {

std::vector<Candidate> make_candidates(const PipelineDag &dag, const CandidateOptions &opt) {
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    SearchSpace space(dag);
    std::vector<Candidate> out;
    std::set<std::string> seen;
    // Dropout percentages cycled over the dropout searches: low keeps few candidates per step
    // (far from the model's choice), high stays close to it.
    const int percents[] = {20, 35, 50, 65, 80};
    int attempts = std::max(opt.count, 2) * std::max(opt.max_attempts_factor, 1);
    for (int a = 0; a < attempts && int(out.size()) < opt.count; a++) {
        BeamSearchOptions bo;
        Candidate c;
        if (a == 0) {
            bo.beam_size = opt.beam_size;
            bo.num_passes = opt.num_passes;
            c.source = "beam";
        } else if (a == 1) {
            bo.beam_size = 1;
            bo.num_passes = 1;
            c.source = "greedy";
        } else {
            int k = a - 2;
            bo.beam_size = opt.dropout_beam_size;
            bo.num_passes = 1;
            bo.random_dropout = percents[k % 5];
            bo.seed = uint64_t(k + 1);
            c.source =
                "dropout:" + std::to_string(bo.random_dropout) + ":" + std::to_string(bo.seed);
        }
        ModelEvaluator eval(dag, model);
        SearchStats stats;
        StatePtr best = beam_search(space, eval, bo, &stats);
        if (!best) continue;
        c.text = to_schedule_text(dag, best->decisions);
        c.hash = schedule_hash(c.text);
        if (!seen.insert(c.hash).second) continue;
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace sextant
