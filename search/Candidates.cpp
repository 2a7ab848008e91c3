#include "Candidates.h"

#include "search/LoopNest.h"
#include "search/Polish.h"
#include "search/ScheduleText.h"
#include "support/Rng.h"

#include <algorithm>
#include <set>

namespace sextant {

namespace {

/** The state with the first `k` Funcs of the search order decided as in `d`. */
StatePtr prefix_of(const SearchSpace &space, const Decisions &d, int k) {
    StatePtr s = space.initial_state();
    for (int i = 0; i < k; i++)
        s = space.make_child(*s, d[size_t(space.order()[size_t(i)])]);
    return s;
}

/** Scores `s` whole through step k (its prefix was never scored). */
void score_through(StateEvaluator &eval, State &s, const std::vector<int> &order, int k) {
    s.dirty.clear();
    for (int i = 0; i <= k; i++)
        s.dirty.push_back(order[size_t(i)]);
    eval.evaluate({&s});
}

/** How far two schedules of one Func are apart: 0 if equal, a field per differing loop tiling,
 * vector width, unrolling, parallel loops, register tile or rfactor; -1 if they differ in
 * where the Func is computed or stored (not a tweak). */
int tweak_distance(const FuncSched &a, const FuncSched &b) {
    if (a.placement != b.placement || a.at_func != b.at_func || a.at_level != b.at_level ||
        a.at_stage != b.at_stage || a.store_level != b.store_level ||
        a.stages.size() != b.stages.size())
        return -1;
    int d = 0;
    for (size_t i = 0; i < a.stages.size(); i++) {
        const StageSched &x = a.stages[i], &y = b.stages[i];
        if (x.loops.size() != y.loops.size()) return -1;
        for (size_t l = 0; l < x.loops.size(); l++)
            d += !(x.loops[l] == y.loops[l]);
        d += (x.vector_width != y.vector_width) + (x.unroll != y.unroll) +
             (x.parallel != y.parallel) + (x.unroll_outer != y.unroll_outer) +
             (x.rfactor != y.rfactor) + (x.unrolled_inside != y.unrolled_inside);
    }
    return d;
}

} // namespace

std::vector<SearchCandidate> mutate_schedule(const PipelineDag &dag, const SearchSpace &space,
                                             StateEvaluator &eval, const std::string &text,
                                             int count, const BeamSearchOptions &complete,
                                             uint64_t seed, const std::string &source_prefix) {
    const Decisions d = parse_schedule_text(dag, text);
    const std::vector<int> &order = space.order();
    std::vector<SearchCandidate> out;
    if (order.empty() || count <= 0) return out;
    std::set<std::string> seen = {to_schedule_text(dag, d)};
    Rng rng(seed);
    for (int attempt = 0; attempt < 4 * count && int(out.size()) < count; attempt++) {
        // The Funcs before step k as they are, Func order[k] changed.
        const int k = int(rng.below(order.size()));
        const int func = order[size_t(k)];
        StatePtr prefix = prefix_of(space, d, k);
        SearchSpaceOptions so = complete.space;
        so.coarse = false;
        std::vector<StatePtr> others;
        space.children(*prefix, so, [&](StatePtr c) {
            if (!(c->decisions[size_t(func)] == d[size_t(func)])) others.push_back(std::move(c));
        });
        if (others.empty()) continue;
        StatePtr start = others[size_t(rng.below(others.size()))];
        // Scored whole, then completed by the model.
        score_through(eval, *start, order, k);
        BeamSearchOptions bo = complete;
        bo.start = start;
        bo.num_passes = 1;
        bo.random_dropout = 100;
        StatePtr done = bo.start->num_decided == int(order.size())
                            ? start
                            : beam_search(space, eval, bo, nullptr);
        if (!done) continue;
        std::string t = to_schedule_text(dag, done->decisions);
        if (!seen.insert(t).second) continue;
        out.push_back({source_prefix + std::to_string(k) + ":" + dag.funcs[size_t(func)].name, t,
                       schedule_hash(t), done});
    }
    return out;
}

std::vector<SearchCandidate> tweak_schedule(const PipelineDag &dag, const SearchSpace &space,
                                            StateEvaluator &eval, const std::string &text,
                                            int count, const SearchSpaceOptions &space_opt,
                                            uint64_t seed, const std::string &source_prefix) {
    const Decisions d = parse_schedule_text(dag, text);
    const std::vector<int> &order = space.order();
    std::vector<SearchCandidate> out;
    if (order.empty() || count <= 0) return out;
    std::set<std::string> seen = {to_schedule_text(dag, d)};
    SearchSpaceOptions so = space_opt;
    so.coarse = false;
    // The tweaked Func's own tilings unthinned (the search keeps 128 a stage, evenly spread,
    // and may drop the neighbour that differs in one split); the Funcs after it as the
    // search offers them.
    SearchSpaceOptions all = so;
    all.tilings_per_stage = std::max(all.tilings_per_stage, 4096);
    all.combos_per_placement = std::max(all.combos_per_placement, 4096);
    all.autotune_tilings = true;
    Rng rng(seed);
    // The Funcs with a tiling to tweak (computed at root or at a loop), in search order, drawn
    // in proportion to their predicted share of the runtime (plus an even 10%): bench
    // histogram_equalize's 1,024-entry lut is 1/8 of its Funcs and nothing of its time.
    StatePtr whole = space.replay(text);
    eval.evaluate({whole.get()});
    std::vector<int> steps;
    std::vector<double> weight;
    double total = 0;
    for (size_t k = 0; k < order.size(); k++)
        if (!d[size_t(order[k])].stages.empty()) {
            steps.push_back(int(k));
            const size_t f = size_t(order[k]);
            weight.push_back(
                f < whole->func_scores.size() ? std::max(0.0, whole->func_scores[f].cost) : 0);
            total += weight.back();
        }
    if (steps.empty()) return out;
    double sum = 0;
    for (double &w : weight) {
        w += total > 0 ? 0.1 * total / double(weight.size()) : 1.0;
        sum += w;
    }
    auto draw = [&] {
        double u = rng.unit() * sum;
        for (size_t i = 0; i < weight.size(); i++)
            if ((u -= weight[i]) < 0) return steps[i];
        return steps.back();
    };
    for (int attempt = 0; attempt < 4 * count && int(out.size()) < count; attempt++) {
        const int k = draw();
        const int func = order[size_t(k)];
        StatePtr cur = prefix_of(space, d, k);
        // Its near tilings at the same place: one field changed, or two.
        std::vector<StatePtr> near[2];
        space.children(*cur, all, [&](StatePtr c) {
            const int dist = tweak_distance(c->decisions[size_t(func)], d[size_t(func)]);
            if (dist == 1 || dist == 2) near[dist - 1].push_back(std::move(c));
        });
        std::vector<StatePtr> &pool =
            !near[0].empty() && (near[1].empty() || rng.below(2) == 0) ? near[0] : near[1];
        if (pool.empty()) continue;
        cur = pool[size_t(rng.below(pool.size()))];
        // The Funcs after it as they were, where that is still legal (a producer computed at
        // a loop the tweak removed is not): else the model's best choice there.
        score_through(eval, *cur, order, k);
        for (size_t i = size_t(k) + 1; cur && i < order.size(); i++) {
            const FuncSched &want = d[size_t(order[i])];
            StatePtr same, best;
            std::vector<StatePtr> kids;
            space.children(*cur, so, [&](StatePtr c) {
                if (!same && c->decisions[size_t(order[i])] == want) same = c;
                kids.push_back(std::move(c));
            });
            if (same) {
                eval.evaluate({same.get()});
                cur = same;
                continue;
            }
            if (kids.empty()) {
                cur = nullptr;
                break;
            }
            std::vector<State *> ptrs;
            for (StatePtr &c : kids)
                ptrs.push_back(c.get());
            eval.evaluate(ptrs);
            for (StatePtr &c : kids)
                if (!best || c->cost < best->cost) best = c;
            cur = best;
        }
        if (!cur) continue;
        std::string t = to_schedule_text(dag, cur->decisions);
        if (!seen.insert(t).second) continue;
        // A loop unrolled inside the vectors must still have no Func computed in it.
        if (first_unrolled_inside_problem(dag, cur->decisions).func >= 0) continue;
        out.push_back({source_prefix + std::to_string(k) + ":" + dag.funcs[size_t(func)].name, t,
                       schedule_hash(t), cur});
    }
    return out;
}

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
    // `n` mutations (tweaks) of `text`, each kind made and completed by a fresh evaluator.
    auto add_mutations = [&](const std::string &text, int n, uint64_t seed,
                             const std::string &prefix) {
        if (n <= 0) return;
        BeamSearchOptions complete = opt.first;
        complete.beam_size = opt.dropout_beam_size;
        std::unique_ptr<StateEvaluator> eval = make_evaluator();
        for (SearchCandidate &m :
             mutate_schedule(dag, space, *eval, text, n, complete, seed, prefix))
            add(std::move(m));
    };
    auto add_tweaks = [&](const std::string &text, int n, uint64_t seed,
                          const std::string &prefix) {
        if (n <= 0) return;
        std::unique_ptr<StateEvaluator> eval = make_evaluator();
        for (SearchCandidate &t :
             tweak_schedule(dag, space, *eval, text, n, opt.first.space, seed, prefix))
            add(std::move(t));
    };
    for (int a = 0; a < attempts && int(out.size()) < opt.count; a++) {
        BeamSearchOptions bo = opt.first;
        SearchCandidate c;
        if (a == 2 && (opt.mutations > 0 || opt.tweaks > 0) && !opt.mutate_texts.empty()) {
            // Mutations of the best measured schedules, after the beam and greedy picks.
            const int texts = int(opt.mutate_texts.size());
            for (int k = 0; k < texts; k++) {
                const int n = opt.mutations / texts + (k < opt.mutations % texts ? 1 : 0);
                add_mutations(opt.mutate_texts[size_t(k)], n,
                              opt.seed_offset + 7919 * uint64_t(k + 1),
                              "mutate:" + std::to_string(k) + ":");
            }
            add_tweaks(opt.mutate_texts[0], opt.tweaks, opt.seed_offset + 104729, "tweak:");
        }
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
            total->peak_held_bytes = std::max(total->peak_held_bytes, stats.peak_held_bytes);
            if (a == 0) total->best_cost_per_pass = stats.best_cost_per_pass;
        }
        if (!c.state) continue;
        if (opt.polish_margin >= 0)
            c.state =
                polish_pick(space, *eval, c.state,
                            a == 0 ? stats.final_beam : std::vector<StatePtr>{}, opt.polish_margin);
        add(std::move(c));
        if (a == 0 && !out.empty()) {
            const std::string pick = out[0].text;
            add_tweaks(pick, opt.neighbours, opt.seed_offset + 15485863, "near-tweak:");
            add_mutations(pick, opt.neighbours, opt.seed_offset + 32452843, "near-mutate:");
        }
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

RankedPick ranked_pick(const PipelineDag &dag, const SearchSpace &space,
                       const std::function<std::unique_ptr<StateEvaluator>()> &propose,
                       StateEvaluator &rank, const CandidateSearchOptions &opt,
                       SearchStats *total) {
    RankedPick r;
    r.candidates = search_candidates(dag, space, propose, opt, total);
    std::vector<StatePtr> states;
    for (size_t i = 0; i < r.candidates.size(); i++) {
        // Replayed, every Func dirty: the ranking model scores the whole schedule, none of the
        // proposer's per-Func costs carried over.
        StatePtr s = space.replay(r.candidates[i].text);
        rank.evaluate({s.get()});
        r.rank_costs.push_back(s->cost);
        if (r.chosen < 0 || s->cost < r.rank_costs[size_t(r.chosen)]) r.chosen = int(i);
        states.push_back(std::move(s));
    }
    if (r.chosen > 0 &&
        !(r.rank_costs[size_t(r.chosen)] <= r.rank_costs[0] * (1 - opt.trust_margin)))
        r.chosen = 0;
    if (r.chosen >= 0) r.state = states[size_t(r.chosen)];
    return r;
}

} // namespace sextant
