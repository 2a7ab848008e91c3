#include "BeamSearch.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>

namespace sextant {

uint64_t Rng::next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

bool better(const StatePtr &a, const StatePtr &b) {
    if (a->cost != b->cost) return a->cost < b->cost;
    return a->hash < b->hash;
}

} // namespace

StatePtr beam_search(const SearchSpace &space, StateEvaluator &eval, const BeamSearchOptions &opt,
                     SearchStats *stats, const std::function<void(const std::string &)> &log) {
    auto start = Clock::now();
    const int beam_size = std::max(1, opt.beam_size);
    const int passes = beam_size == 1 ? 1 : std::max(1, opt.num_passes);
    const int steps = int(space.order().size());
    Rng rng(opt.seed);
    StatePtr best;
    // Placement-prefix hashes allowed at each depth (empty set = anything goes).
    std::vector<std::set<uint64_t>> allowed(steps + 1);

    for (int pass = 0; pass < passes; pass++) {
        SearchSpaceOptions so;
        so.coarse = passes > 1 && pass == 0;
        so.memory_limit_bytes = opt.memory_limit_bytes;
        std::vector<StatePtr> beam = {space.initial_state()};
        for (int step = 0; step < steps; step++) {
            std::vector<StatePtr> cand;
            for (const StatePtr &s : beam) space.children(*s, so, &cand);
            if (pass > 0 && !allowed[step + 1].empty()) {
                std::vector<StatePtr> kept;
                for (StatePtr &c : cand)
                    if (allowed[step + 1].count(c->placement_hash)) kept.push_back(std::move(c));
                if (!kept.empty()) cand = std::move(kept);
            }
            if (opt.random_dropout < 100 && cand.size() > 1) {
                std::vector<StatePtr> kept;
                for (StatePtr &c : cand)
                    if (int(rng.below(100)) < opt.random_dropout) kept.push_back(std::move(c));
                if (kept.empty()) kept.push_back(cand[rng.below(cand.size())]);
                cand = std::move(kept);
            }
            std::vector<State *> raw;
            raw.reserve(cand.size());
            for (const StatePtr &c : cand) raw.push_back(c.get());
            auto t0 = Clock::now();
            eval.evaluate(raw);
            if (stats) {
                stats->seconds_evaluating += since(t0);
                stats->states_evaluated += int64_t(raw.size());
            }
            std::sort(cand.begin(), cand.end(), better);
            std::vector<StatePtr> next;
            std::set<uint64_t> seen;
            for (StatePtr &c : cand) {
                if (int(next.size()) >= beam_size) break;
                if (!seen.insert(c->hash).second) continue; // a duplicate of a better state
                next.push_back(std::move(c));
            }
            beam = std::move(next);
        }
        if (beam.empty()) break;
        if (!best || better(beam[0], best)) best = beam[0];
        if (stats) stats->best_cost_per_pass.push_back(beam[0]->cost);
        if (log) {
            std::ostringstream o;
            o << "pass " << pass + 1 << "/" << passes << (so.coarse ? " (coarse)" : "")
              << ": best predicted " << beam[0]->cost * 1e3 << " ms";
            log(o.str());
        }
        // Structures of the best states of this pass constrain the next one.
        for (auto &a : allowed) a.clear();
        int keep = std::min<int>(opt.keep_structures, int(beam.size()));
        for (int i = 0; i < keep; i++) {
            // Rebuild the prefix hashes by replaying the decisions in order.
            uint64_t h = 0;
            const State &s = *beam[i];
            allowed[0].insert(h);
            for (int step = 0; step < steps; step++) {
                const FuncSched &fs = s.decisions[space.order()[step]];
                h = hash_mix(h, placement_key(fs));
                allowed[step + 1].insert(h);
            }
        }
    }
    if (stats) stats->seconds_total += since(start);
    return best;
}

} // namespace sextant
