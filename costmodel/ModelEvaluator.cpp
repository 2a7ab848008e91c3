#include "ModelEvaluator.h"

#include "costmodel/CostTerms.h"

#include <algorithm>
#include <chrono>

namespace sextant {

ModelEvaluator::ModelEvaluator(const PipelineDag &dag, CostModel &model)
    : dag_(dag), model_(model), featurizer_(dag) {}

void ModelEvaluator::evaluate(const std::vector<State *> &states) {
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    batch_.clear();
    row_func_.clear();
    batch_.algorithm = &featurizer_.algorithm_table();
    batch_.num_states = int(states.size());
    for (size_t i = 0; i < states.size(); i++) {
        State &s = *states[i];
        if (s.dirty.empty() && s.recheck.empty()) continue;
        const HeapGroups groups(dag_, s.decisions, s.nests);
        // A Func whose rows depend on the rest of its nest only through its page faults is
        // scored again only if those changed.
        for (int f : s.recheck) {
            if (!s.nests[f] || std::find(s.dirty.begin(), s.dirty.end(), f) != s.dirty.end())
                continue;
            if (page_faults_per_run(dag_, s.decisions, s.nests, f, &groups) != s.func_faults[f])
                s.dirty.push_back(f);
        }
        s.recheck.clear();
        for (int f : s.dirty) {
            if (!s.nests[f]) continue;
            for (size_t st = 0; st < dag_.funcs[f].stages.size(); st++) {
                batch_.schedule.push_back(
                    featurizer_.schedule_features(s.decisions, s.nests, f, int(st), &groups));
                if (st == 0)
                    s.func_faults[f] = batch_.schedule.back()[int(ScheduleFeature::page_faults)];
                batch_.stage_ids.push_back(featurizer_.stage_id(f, int(st)));
                batch_.state_index.push_back(int(i));
                row_func_.push_back({int(i), f});
            }
        }
    }
    auto t1 = Clock::now();
    std::vector<double> costs =
        batch_.size() ? model_.predict_stages(batch_) : std::vector<double>{};
    auto t2 = Clock::now();
    timing_.featurize_seconds += std::chrono::duration<double>(t1 - t0).count();
    timing_.predict_seconds += std::chrono::duration<double>(t2 - t1).count();
    timing_.rows += int64_t(batch_.size());
    timing_.states += int64_t(states.size());
    for (State *s : states)
        for (int f : s->dirty)
            s->func_cost[f] = 0;
    for (size_t r = 0; r < costs.size(); r++)
        states[row_func_[r].first]->func_cost[row_func_[r].second] += costs[r];
    for (State *s : states) {
        s->dirty.clear();
        double c = 0;
        for (double v : s->func_cost)
            c += v;
        s->cost = c + model_.allocator_cost(estimate_allocator(dag_, s->decisions, s->nests));
    }
}

} // namespace sextant
