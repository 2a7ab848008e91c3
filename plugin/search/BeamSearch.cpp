#include "BeamSearch.h"

#include "support/Rng.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace sextant {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

bool better(const StatePtr &a, const StatePtr &b) {
    if (a->cost != b->cost) return a->cost < b->cost;
    return a->hash < b->hash;
}

/** Bytes a state holds of its own (object, decisions, per-Func vectors), with allocator
 * overhead; the FuncNests it shares with its parent are not counted. */
double state_bytes(const State &s) {
    constexpr double kAlloc = 16;           // malloc's header per allocation
    double b = sizeof(State) + 32 + kAlloc; // + make_shared's control block
    b += double(s.decisions.capacity()) * sizeof(FuncSched) + kAlloc;
    for (const FuncSched &f : s.decisions)
        if (f.stages.capacity()) b += double(f.stages.capacity()) * sizeof(StageSched) + kAlloc;
    b += double(s.nests.capacity()) * sizeof(NestPtr) + kAlloc;
    b += double(s.func_cost.capacity()) * sizeof(double) + kAlloc;
    b += double(s.dirty.capacity()) * sizeof(int) + kAlloc;
    return b;
}

double nest_bytes(const FuncNest &n) {
    constexpr double kAlloc = 16;
    double b = sizeof(FuncNest) + 32 + kAlloc;
    b += double(n.region.capacity() + n.store_region.capacity()) * sizeof(Interval64) + 2 * kAlloc;
    b += double(n.stages.capacity()) * sizeof(StageNest) + kAlloc;
    for (const StageNest &st : n.stages) {
        b += double(st.loop_box.capacity()) * sizeof(Interval64) + kAlloc;
        b += double(st.order.capacity()) * sizeof(ConcreteLoop) + kAlloc;
    }
    return b;
}

/** What a child costs to hold: its own state and the one FuncNest it made. */
double child_bytes(const State &c, int func) {
    double b = state_bytes(c);
    if (func >= 0 && func < int(c.nests.size()) && c.nests[func]) b += nest_bytes(*c.nests[func]);
    return b;
}

/** The best `keep` distinct states of a stream of children, scored in batches of at most
 * `batch`: holds at most keep + batch states. */
class BestChildren {
public:
    BestChildren(StateEvaluator &eval, SearchStats *stats, size_t keep, size_t batch,
                 size_t per_structure, size_t per_cost)
        : eval_(eval), stats_(stats), keep_(std::max<size_t>(1, keep)),
          batch_(std::max<size_t>(1, batch)), per_structure_(std::max<size_t>(1, per_structure)),
          per_cost_(std::max<size_t>(1, per_cost)) {}

    void add(StatePtr c) {
        pending_.push_back(std::move(c));
        if (pending_.size() >= batch_) flush();
    }

    /** Scores what is pending and keeps the best `keep` distinct states. */
    void flush() {
        if (pending_.empty()) return;
        std::vector<State *> raw;
        raw.reserve(pending_.size());
        for (const StatePtr &c : pending_)
            raw.push_back(c.get());
        auto t0 = Clock::now();
        eval_.evaluate(raw);
        if (stats_) {
            stats_->seconds_evaluating += since(t0);
            stats_->states_evaluated += int64_t(raw.size());
        }
        for (StatePtr &c : pending_)
            best_.push_back(std::move(c));
        pending_.clear();
        std::sort(best_.begin(), best_.end(), better);
        // At most per_structure_ states of one placement structure, while others are left:
        // siblings that differ only in tilings score alike, and a beam full of them loses the
        // structures a producer decided later would have made cheaper.
        std::vector<StatePtr> kept, passed_over;
        // Duplicates: same hash and the same decisions (a hash collision is not a duplicate).
        std::map<uint64_t, std::vector<const State *>> seen;
        std::map<uint64_t, size_t> per_structure;
        // States of one predicted cost (sorted, so equal costs are adjacent).
        double run_cost = -1;
        size_t run = 0;
        for (StatePtr &c : best_) {
            if (kept.size() >= keep_) break;
            std::vector<const State *> &same_hash = seen[c->hash];
            if (std::any_of(same_hash.begin(), same_hash.end(),
                            [&](const State *o) { return o->decisions == c->decisions; }))
                continue; // a duplicate of a better state
            same_hash.push_back(c.get());
            if (c->cost != run_cost) {
                run_cost = c->cost;
                run = 0;
            }
            if (++run > per_cost_) {
                passed_over.push_back(std::move(c));
                continue;
            }
            if (++per_structure[c->placement_hash] > per_structure_) {
                passed_over.push_back(std::move(c));
                continue;
            }
            kept.push_back(std::move(c));
        }
        for (StatePtr &c : passed_over) {
            if (kept.size() >= keep_) break;
            kept.push_back(std::move(c));
        }
        std::sort(kept.begin(), kept.end(), better);
        best_ = std::move(kept);
    }

    size_t held() const { return best_.size() + pending_.size(); }
    bool empty() const { return best_.empty() && pending_.empty(); }
    std::vector<StatePtr> take() {
        flush();
        return std::move(best_);
    }

private:
    StateEvaluator &eval_;
    SearchStats *stats_;
    size_t keep_, batch_, per_structure_, per_cost_;
    std::vector<StatePtr> best_, pending_;
};

std::string mib(double bytes) {
    std::ostringstream o;
    o.precision(3);
    o << bytes / (1024.0 * 1024.0) << " MiB";
    return o.str();
}

/** How a pass's bounds narrowed its steps, for the notes at its end. */
struct PassBounds {
    int narrowed = 0, min_keep = 0, min_batch = 0; // memory
    int paced = 0, min_paced = 0;                  // time
};

/** States to keep and children per batch for one step: the beam and one batch of children
 * must fit in what the memory bound leaves (the tiling cache and the parents held), and the
 * pass must end in time at the pace its steps have gone so far (`seconds_per_parent` < 0:
 * no pace yet). */
void bound_step(const BeamSearchOptions &opt, double budget, double cache_bytes, size_t parents,
                double per_child, bool finishing, double seconds_left, double seconds_per_parent,
                int steps_left, int &keep, int &batch, PassBounds &b) {
    // This step's children are a little larger than the last step's (one more Func
    // decided): plan with some room.
    const double per = per_child * 1.05 + 1024;
    const double avail = budget - cache_bytes - double(parents) * per;
    keep = finishing ? 1 : std::max(1, opt.beam_size);
    batch = std::max(1, opt.max_batch);
    if (double(keep + batch) * per > avail) {
        batch = int(std::max(16.0, std::min(double(batch), avail / per - keep)));
        if (double(keep + batch) * per > avail) {
            keep = int(std::max(1.0, std::min(double(keep), avail / per / 2)));
            batch = std::max(16, keep);
        }
        b.narrowed++;
        b.min_keep = std::min(b.min_keep, keep);
        b.min_batch = std::min(b.min_batch, batch);
    }
    if (opt.time_limit_s > 0 && !finishing && seconds_per_parent >= 0) {
        double affordable = seconds_left / (seconds_per_parent * double(steps_left));
        if (affordable < keep) {
            keep = int(std::max(1.0, affordable));
            b.paced++;
            b.min_paced = std::min(b.min_paced, keep);
        }
    }
}

/** The placement-prefix hashes of the best `keep_structures` states of a pass's final beam,
 * per depth: the states the next pass may continue. */
void allow_structures_of(const SearchSpace &space, const std::vector<StatePtr> &beam,
                         int keep_structures, std::vector<std::set<uint64_t>> &allowed) {
    for (auto &a : allowed)
        a.clear();
    const int steps = int(space.order().size());
    int keep = std::min<int>(keep_structures, int(beam.size()));
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

} // namespace

StatePtr beam_search(const SearchSpace &space, StateEvaluator &eval, const BeamSearchOptions &opt,
                     SearchStats *stats, const std::function<void(const std::string &)> &log) {
    auto start = Clock::now();
    SearchStats scratch;
    SearchStats &st = stats ? *stats : scratch;
    auto note = [&](const std::string &msg) {
        st.notes.push_back(msg);
        if (log) log(msg);
    };
    auto out_of_time = [&] { return opt.time_limit_s > 0 && since(start) > opt.time_limit_s; };
    const int beam_size = std::max(1, opt.beam_size);
    const int passes = beam_size == 1 ? 1 : std::max(1, opt.num_passes);
    const int steps = int(space.order().size());
    const double budget = opt.memory_bytes > 0 ? opt.memory_bytes : 1e300;
    // Seeds are spread by the golden gamma: SplitMix64 streams whose states differ by a
    // multiple of it are the same stream shifted.
    Rng rng(opt.seed * kGoldenGamma + 1);
    // For the reservoir pick, apart from dropout's draws.
    Rng pick_rng((opt.seed ^ 0x5bd1e995ULL) * kGoldenGamma + 1);
    StatePtr best;
    // Placement-prefix hashes allowed at each depth (empty set = anything goes).
    std::vector<std::set<uint64_t>> allowed(steps + 1);
    // The time ran out during the first pass: it finishes greedily, with coarse tilings.
    bool finishing = false;
    bool abandoned = false;

    for (int pass = 0; pass < passes && !abandoned; pass++) {
        if (pass > 0 && out_of_time()) {
            st.time_limited = true;
            std::ostringstream o;
            o << "time limit (" << opt.time_limit_s << " s) reached after pass " << pass << " of "
              << passes << "; using the best schedule found so far";
            note(o.str());
            break;
        }
        st.pass = pass + 1;
        SearchSpaceOptions so = opt.space;
        so.coarse = passes > 1 && pass == 0;
        so.memory_limit_bytes = opt.memory_limit_bytes;
        std::vector<StatePtr> beam = {space.initial_state()};
        double per_child = child_bytes(*beam[0], -1) * 1.3;
        PassBounds bounds;
        bounds.min_keep = bounds.min_paced = beam_size;
        bounds.min_batch = opt.max_batch;
        // Pacing: seconds per parent so far in this pass, to narrow the beam when the pass
        // would not end in its share of the time limit (the first of several passes: half).
        double parent_seconds = 0;
        int64_t parents_done = 0;
        const double pass_end = opt.time_limit_s * (passes > 1 && pass == 0 && !best ? 0.5 : 0.9);
        for (int step = 0; step < steps; step++) {
            st.step = step;
            st.func = space.order()[step];
            if (!finishing && out_of_time()) {
                st.time_limited = true;
                std::ostringstream o;
                o << "time limit (" << opt.time_limit_s << " s) reached in pass " << pass + 1
                  << " at step " << step + 1 << " of " << steps;
                if (best) {
                    note(o.str() + "; using the best schedule of the passes before");
                    abandoned = true;
                    break;
                }
                note(o.str() + "; finishing this pass greedily with coarse tilings");
                finishing = true;
            }
            if (finishing) {
                so.coarse = true;
                if (beam.size() > 1) beam.resize(1);
            }
            // Memory: the tiling cache, the beam, the best children and one batch.
            if (space.cache_bytes() > budget / 4) {
                space.clear_caches();
                st.cache_drops++;
            }
            int keep = 0, batch = 0;
            bound_step(opt, budget, space.cache_bytes(), beam.size(), per_child, finishing,
                       pass_end - since(start),
                       parents_done > 0 ? parent_seconds / double(parents_done) : -1, steps - step,
                       keep, batch, bounds);
            const double parents = double(beam.size()) * (per_child * 1.05 + 1024);
            auto step_start = Clock::now();
            const bool filter = pass > 0 && !allowed[step + 1].empty();
            const size_t per_structure = opt.structure_share > 0
                                             ? size_t(std::ceil(keep * opt.structure_share))
                                             : size_t(keep);
            const size_t per_cost = opt.equal_cost_share > 0
                                        ? size_t(std::ceil(keep * opt.equal_cost_share))
                                        : size_t(keep);
            BestChildren kept(eval, &st, size_t(keep), size_t(batch), per_structure, per_cost);
            StatePtr dropped_pick; // one child that dropout dropped, uniformly (reservoir)
            int64_t dropped = 0, matching = 0;
            bool measured = false;
            auto take = [&](bool use_filter) {
                auto emit = [&](StatePtr c) {
                    if (!measured) {
                        per_child = std::max(per_child, child_bytes(*c, st.func) * 1.3);
                        measured = true;
                    }
                    if (use_filter && !allowed[step + 1].count(c->placement_hash)) return;
                    matching++;
                    if (opt.random_dropout < 100 && int(rng.below(100)) >= opt.random_dropout) {
                        if (pick_rng.below(uint64_t(++dropped)) == 0) dropped_pick = std::move(c);
                        return;
                    }
                    kept.add(std::move(c));
                };
                for (size_t i = 0; i < beam.size(); i++) {
                    space.children(*beam[i], so, emit);
                    double held = parents + double(kept.held()) * per_child + space.cache_bytes();
                    st.peak_held_bytes = std::max(st.peak_held_bytes, held);
                    // Out of time in the first pass: the children made so far must do.
                    if (!finishing && !best && !kept.empty() && i + 1 < beam.size() &&
                        out_of_time())
                        break;
                }
            };
            take(filter);
            if (filter && matching == 0) take(false); // no child continues a kept structure
            if (kept.empty() && dropped_pick) kept.add(std::move(dropped_pick));
            parents_done += int64_t(beam.size());
            beam = kept.take();
            parent_seconds += since(step_start);
            if (beam.empty()) break;
        }
        if (abandoned) break;
        if (bounds.narrowed > 0) {
            st.narrowed_steps += bounds.narrowed;
            std::ostringstream o;
            o << "memory bound (" << mib(budget) << "): pass " << pass + 1 << " narrowed "
              << bounds.narrowed << " of " << steps << " steps (beam down to " << bounds.min_keep
              << ", batches of " << bounds.min_batch << "; ~" << per_child / 1024
              << " KiB per state)";
            note(o.str());
        }
        if (bounds.paced > 0) {
            std::ostringstream o;
            o << "time limit (" << opt.time_limit_s << " s): pass " << pass + 1
              << " narrowed the beam on " << bounds.paced << " of " << steps << " steps (down to "
              << bounds.min_paced << ") to end in time";
            note(o.str());
        }
        if (beam.empty() || !space.is_complete(*beam[0])) {
            st.func = -1;
            break;
        }
        if (!best || better(beam[0], best)) best = beam[0];
        st.best_cost_per_pass.push_back(beam[0]->cost);
        st.final_beam.clear();
        for (const StatePtr &b : beam)
            if (space.is_complete(*b)) st.final_beam.push_back(b);
        if (log) {
            std::ostringstream o;
            o << "pass " << pass + 1 << "/" << passes << (so.coarse ? " (coarse)" : "")
              << ": best predicted " << beam[0]->cost * 1e3 << " ms";
            log(o.str());
        }
        if (finishing) break; // the time is up: no further passes
        // Structures of the best states of this pass constrain the next one.
        allow_structures_of(space, beam, opt.keep_structures, allowed);
    }
    if (st.cache_drops > 0)
        note("memory bound: dropped the tiling cache " + std::to_string(st.cache_drops) + " times");
    st.func = -1;
    st.seconds_total += since(start);
    return best;
}

} // namespace sextant
