#include "Candidates.h"

#include "plugin/search/ScheduleText.h"

#include <algorithm>
#include <set>

namespace sextant {

std::vector<SearchCandidate>
search_candidates(const PipelineDag &dag, const SearchSpace &space,
                  const std::function<std::unique_ptr<StateEvaluator>()> &make_evaluator,
                  const CandidateSearchOptions &opt, SearchStats *total) {
    std::vector<SearchCandidate> out;
    std::set<std::string> seen;
    // Dropout percentages cycled over the dropout searches: low keeps few candidates per step
    // (far from the model's choice), high stays close to it.
    const int percents[] = {20, 35, 50, 65, 80};
    int attempts = std::max(opt.count, 2) * std::max(opt.max_attempts_factor, 1);
    auto add = [&](SearchCandidate c) {
        if (int(out.size()) >= opt.count) return;
        c.text = to_schedule_text(dag, c.state->decisions);
        if (!seen.insert(c.text).second) return;
        c.hash = schedule_hash(c.text);
        out.push_back(std::move(c));
    };
    // States of a final beam, from rank `first_rank` on, at most opt.final_beam of them.
    auto add_final_beam = [&](int width, const std::vector<StatePtr> &beam, int first_rank) {
        int end = std::min<int>(int(beam.size()), first_rank + opt.final_beam);
        for (int r = first_rank; r < end; r++)
            add({"final:" + std::to_string(width) + ":" + std::to_string(r), "", "", beam[r]});
    };
    for (int a = 0; a < attempts && int(out.size()) < opt.count; a++) {
        BeamSearchOptions bo = opt.first;
        SearchCandidate c;
        if (a == 0) {
            c.source = "beam";
        } else if (a == 1) {
            bo.beam_size = 1;
            bo.num_passes = 1;
            bo.random_dropout = 100;
            c.source = "greedy";
        } else {
            int k = a - 2;
            bo.beam_size = opt.dropout_beam_size;
            bo.num_passes = 1;
            bo.random_dropout = percents[k % 5];
            bo.seed = opt.seed_offset + uint64_t(k + 1);
            c.source =
                "dropout:" + std::to_string(bo.random_dropout) + ":" + std::to_string(bo.seed);
        }
        std::unique_ptr<StateEvaluator> eval = make_evaluator();
        SearchStats stats;
        c.state = beam_search(space, *eval, bo, &stats);
        if (total) {
            total->states_evaluated += stats.states_evaluated;
            total->seconds_total += stats.seconds_total;
            total->seconds_evaluating += stats.seconds_evaluating;
            if (a == 0) total->best_cost_per_pass = stats.best_cost_per_pass;
        }
        if (!c.state) continue;
        add(std::move(c));
        if (a == 0 && opt.final_beam > 0) {
            add_final_beam(bo.beam_size, stats.final_beam, 1);
            if (bo.beam_size != 8) {
                BeamSearchOptions narrow = bo;
                narrow.beam_size = 8;
                std::unique_ptr<StateEvaluator> e8 = make_evaluator();
                SearchStats s8;
                if (beam_search(space, *e8, narrow, &s8)) add_final_beam(8, s8.final_beam, 0);
                if (total) total->states_evaluated += s8.states_evaluated;
            }
        }
    }
    return out;
}

} // namespace sextant
