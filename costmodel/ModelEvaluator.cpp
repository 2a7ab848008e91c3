#include "ModelEvaluator.h"

#include "costmodel/CostTerms.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace sextant {

ModelEvaluator::ModelEvaluator(const PipelineDag &dag, CostModel &model, bool check_siblings)
    : dag_(dag), model_(model), featurizer_(dag), check_siblings_(check_siblings) {}

ModelEvaluator::~ModelEvaluator() {
    if (check_siblings_)
        std::cerr << "Sextant: sibling check: " << sibling_checks_ << " states compared, "
                  << sibling_mismatches_ << " differ\n";
}

void ModelEvaluator::evaluate(const std::vector<State *> &states) {
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    batch_.clear();
    row_func_.clear();
    batch_.algorithm = &featurizer_.algorithm_table();
    batch_.num_states = int(states.size());
    // A state whose `siblings` id matches the last one scored whole takes every score but its
    // decided Func's from that one (State::siblings): -1 scores whole, -2 the cached one
    // (an earlier call), else the index of the one in this call.
    rep_in_.assign(states.size(), -1);
    int current = rep_.id != 0 ? -2 : -1;
    uint64_t current_id = rep_.id;
    auto featurize = [&](State &s, int i, int f, const HeapGroups &groups) {
        for (size_t st = 0; st < dag_.funcs[f].stages.size(); st++) {
            batch_.schedule.push_back(
                featurizer_.schedule_features(s.decisions, s.nests, f, int(st), &groups));
            if (st == 0)
                s.func_scores[f].faults = batch_.schedule.back()[int(ScheduleFeature::page_faults)];
            batch_.stage_ids.push_back(featurizer_.stage_id(f, int(st)));
            batch_.state_index.push_back(i);
            row_func_.push_back({i, f});
        }
    };
    for (size_t i = 0; i < states.size(); i++) {
        State &s = *states[i];
        if (s.dirty.empty() && s.recheck.empty()) continue;
        if (s.siblings != 0 && s.siblings == current_id && !check_siblings_ && s.decided >= 0 &&
            s.nests[s.decided]) {
            rep_in_[i] = current;
            s.recheck.clear();
            featurize(s, int(i), s.decided, current == -2 ? rep_.groups : rep_groups_);
            continue;
        }
        groups_.reset(dag_, s.decisions, s.nests);
        const HeapGroups &groups = groups_;
        // A Func whose rows depend on the rest of its nest only through its page faults is
        // scored again only if those changed.
        for (int f : s.recheck) {
            if (!s.nests[f] || std::find(s.dirty.begin(), s.dirty.end(), f) != s.dirty.end())
                continue;
            if (page_faults_per_run(dag_, s.decisions, s.nests, f, &groups) !=
                s.func_scores[f].faults)
                s.dirty.push_back(f);
        }
        s.recheck.clear();
        for (int f : s.dirty)
            if (s.nests[f]) featurize(s, int(i), f, groups);
        if (s.siblings != 0 && s.siblings != current_id) {
            current = int(i);
            current_id = s.siblings;
            std::swap(rep_groups_, groups_);
        } else if (s.siblings != 0 && check_siblings_) {
            rep_in_[i] = current; // scored whole, compared below
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
            s->func_scores[f].cost = 0;
    for (size_t r = 0; r < costs.size(); r++)
        states[row_func_[r].first]->func_scores[row_func_[r].second].cost += costs[r];
    alloc_cost_.assign(states.size(), 0.0);
    for (size_t i = 0; i < states.size(); i++) {
        State &s = *states[i];
        s.dirty.clear();
        const bool whole = rep_in_[i] == -1 || check_siblings_;
        if (whole) {
            alloc_cost_[i] = model_.allocator_cost(
                estimate_allocator(dag_, s.decisions, s.nests, nullptr, outlook_));
        } else {
            // The decided Func's rows were summed into its score above; the rest as its sibling.
            const int f = s.decided;
            const State::FuncScore own = s.func_scores[f];
            const int r = rep_in_[i];
            s.func_scores = r == -2 ? rep_.func_scores : states[size_t(r)]->func_scores;
            s.func_scores[f] = own;
            alloc_cost_[i] = r == -2 ? rep_.allocator_cost : alloc_cost_[size_t(r)];
        }
        double c = 0;
        for (const State::FuncScore &v : s.func_scores)
            c += v.cost;
        s.cost = c + alloc_cost_[i];
        if (check_siblings_ && rep_in_[i] != -1) check_sibling(s, i, states);
    }
    // The last state scored whole with a siblings id serves its later siblings.
    if (current >= 0) {
        const State &r = *states[size_t(current)];
        rep_.id = current_id;
        rep_.func_scores = r.func_scores;
        rep_.allocator_cost = alloc_cost_[size_t(current)];
        rep_.groups = rep_groups_;
    }
}

void ModelEvaluator::check_sibling(const State &s, size_t i, const std::vector<State *> &states) {
    const int r = rep_in_[i];
    const std::vector<State::FuncScore> &scores =
        r == -2 ? rep_.func_scores : states[size_t(r)]->func_scores;
    const double alloc = r == -2 ? rep_.allocator_cost : alloc_cost_[size_t(r)];
    bool same = alloc == alloc_cost_[i];
    for (size_t f = 0; f < scores.size(); f++)
        if (int(f) != s.decided && !(scores[f] == s.func_scores[f])) same = false;
    sibling_checks_++;
    if (!same && sibling_mismatches_++ < 5)
        std::cerr << "Sextant: sibling check: a state placing "
                  << dag_.funcs[size_t(s.decided)].name
                  << " scores other Funcs unlike its sibling (allocator " << alloc_cost_[i]
                  << " vs " << alloc << ")\n";
}

} // namespace sextant
