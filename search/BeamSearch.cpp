#include "BeamSearch.h"

#include "search/BestChildren.h"
#include "search/ChildrenAhead.h"
#include "search/JobQueue.h"
#include "search/SearchSpaceDetail.h"
#include "support/Rng.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace sextant {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

using detail::BestChildren;
using detail::better_state;

/** Bytes a state holds of its own (object, decisions, per-Func vectors), with allocator
 * overhead; the FuncNests it shares with its parent are not counted. The per-stage schedules
 * are counted as if each state held its own copy (it shares all but one with its parent since
 * they are copied on write): an over-estimate the memory limit was tuned with. */
double state_bytes(const State &s) {
    constexpr double kAlloc = 16;           // malloc's header per allocation
    double b = sizeof(State) + 32 + kAlloc; // + make_shared's control block
    b += double(s.decisions.chunks()) * (Decisions::chunk_size() * sizeof(FuncSched) + kAlloc);
    for (const FuncSched &f : s.decisions)
        if (!f.stages.empty()) b += double(f.stages.size()) * sizeof(StageSched) + kAlloc;
    b += double(s.nests.chunks()) * (Nests::chunk_size() * sizeof(NestPtr) + kAlloc);
    b += double(s.func_scores.capacity()) * sizeof(State::FuncScore) + kAlloc;
    b += double(s.dirty.heap_bytes() + s.recheck.heap_bytes());
    return b;
}

double nest_bytes(const FuncNest &n) {
    constexpr double kAlloc = 16;
    double b = sizeof(FuncNest) + 32 + kAlloc;
    b += double(n.region.heap_bytes() + n.store_region.heap_bytes()); // boxes are inline
    b += double(n.stages.capacity()) * sizeof(StageNest) + kAlloc;
    for (const StageNest &st : n.stages)
        b += double(st.loop_box.heap_bytes() + st.order.heap_bytes());
    return b;
}

/** What a child costs to hold: its own state and the one FuncNest it made. */
double child_bytes(const State &c, int func) {
    double b = state_bytes(c);
    if (func >= 0 && func < int(c.nests.size()) && c.nests[func]) b += nest_bytes(*c.nests[func]);
    return b;
}

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
                int steps_left, int &keep, int &batch, bool &two_batches, PassBounds &b) {
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
    two_batches = double(keep + 2 * batch) * per <= avail;
    if (opt.time_limit_s > 0 && !finishing && seconds_per_parent >= 0) {
        double affordable = seconds_left / (seconds_per_parent * double(steps_left));
        if (affordable < keep) {
            keep = int(std::max(1.0, affordable));
            b.paced++;
            b.min_paced = std::min(b.min_paced, keep);
        }
    }
}

/** Adds the placement-prefix hashes of the best `keep_structures` states of a pass's final
 * beam, per depth, to those the later passes may continue (every pass's are kept). */
void allow_structures_of(const SearchSpace &space, const std::vector<StatePtr> &beam,
                         int keep_structures, std::vector<std::set<uint64_t>> &allowed) {
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

/** One beam search: what its passes and steps share. */
class BeamSearchRun {
public:
    BeamSearchRun(const SearchSpace &space, StateEvaluator &eval, const BeamSearchOptions &opt,
                  SearchStats &st, const std::function<void(const std::string &)> &log)
        : space_(space), eval_(eval), opt_(opt), st_(st), log_(log),
          beam_size_(std::max(1, opt.beam_size)),
          passes_(beam_size_ == 1 ? 1 : std::max(1, opt.num_passes)),
          steps_(int(space.order().size())),
          budget_(opt.memory_bytes > 0 ? opt.memory_bytes : 1e300),
          // Seeds are spread by the golden gamma: SplitMix64 streams whose states differ by a
          // multiple of it are the same stream shifted.
          rng_(opt.seed * kGoldenGamma + 1),
          // For the reservoir pick, apart from dropout's draws.
          pick_rng_((opt.seed ^ 0x5bd1e995ULL) * kGoldenGamma + 1), allowed_(steps_ + 1) {}

    StatePtr run() {
        for (int pass = 0; pass < passes_ && !abandoned_; pass++) {
            if (pass > 0 && out_of_time()) {
                st_.time_limited = true;
                std::ostringstream o;
                o << "time limit (" << opt_.time_limit_s << " s) reached after pass " << pass
                  << " of " << passes_ << "; using the best schedule found so far";
                note(o.str());
                break;
            }
            if (!run_pass(pass)) break;
            if (pass + 1 == passes_ && passes_ > 1 && opt_.near_cost > 0 && !out_of_time())
                run_pass(pass + 1, Kind::near);
        }
        if (best_ && !abandoned_ && !finishing_ && passes_ > 1 && opt_.lookahead_pass &&
            !out_of_time())
            run_pass(passes_ + 1, Kind::lookahead);
        if (best_ && !abandoned_ && !finishing_ && passes_ > 1 && opt_.allocator_outlook_pass &&
            !out_of_time()) {
            eval_.set_allocator_outlook(true);
            run_pass(passes_ + 2, Kind::outlook);
            eval_.set_allocator_outlook(false);
        }
        if (st_.cache_drops > 0)
            note("memory bound: dropped the tiling cache " + std::to_string(st_.cache_drops) +
                 " times");
        st_.func = -1;
        st_.seconds_total += since(start_);
        return best_;
    }

private:
    /** The regular passes; the near-cost pass (BeamSearchOptions::near_cost: coarse, with
     * near-equal costs counted as equal); the lookahead pass (lookahead_pass); the allocator
     * outlook pass (allocator_outlook_pass). The last three replace the regular passes' pick
     * only by their margins. */
    enum class Kind { regular, near, lookahead, outlook };

    /** What one pass carries from step to step. */
    struct Pass {
        int index = 0;
        Kind kind = Kind::regular;
        SearchSpaceOptions so;
        std::vector<StatePtr> beam;
        double per_child = 0; ///< estimated bytes of one child state
        PassBounds bounds;
        // Pacing: seconds per parent so far in this pass, to narrow the beam when the pass
        // would not end in its share of the time limit (the first of several passes: half).
        double parent_seconds = 0;
        int64_t parents_done = 0;
        double pass_end = 0;
        /** The traced schedule's prefix (BeamSearchOptions::trace); null once a step did not
         * offer it. */
        StatePtr trace;
    };

    void note(const std::string &msg) {
        st_.notes.push_back(msg);
        if (log_) log_(msg);
    }
    bool out_of_time() const { return opt_.time_limit_s > 0 && since(start_) > opt_.time_limit_s; }

    /** One pass; false when the search ends with it. */
    bool run_pass(int pass, Kind kind = Kind::regular) {
        st_.pass = pass + 1;
        const auto pass_start = Clock::now();
        Pass p;
        p.index = pass;
        p.kind = kind;
        const bool near = kind == Kind::near, look = kind == Kind::lookahead;
        p.so = opt_.space;
        p.so.coarse = (passes_ > 1 && pass == 0) || near;
        p.so.memory_limit_bytes = opt_.memory_limit_bytes;
        p.beam = {opt_.start ? opt_.start : space_.initial_state()};
        p.per_child = child_bytes(*p.beam[0], -1) * 1.3;
        p.bounds.min_keep = p.bounds.min_paced = beam_size_;
        p.bounds.min_batch = opt_.max_batch;
        p.pass_end = opt_.time_limit_s * (passes_ > 1 && pass == 0 && !best_ ? 0.5 : 0.9);
        if (opt_.trace) p.trace = p.beam[0];
        for (int step = p.beam[0]->num_decided; step < steps_; step++) {
            st_.step = step;
            st_.func = space_.order()[step];
            if (!finishing_ && out_of_time() && !run_out_of_time(p, step)) break;
            if (finishing_) {
                p.so.coarse = true;
                if (p.beam.size() > 1) p.beam.resize(1);
            }
            expand(p, step);
            if (p.beam.empty()) break;
        }
        if (abandoned_) return false;
        bound_notes(p);
        // Complete states are checked whole for Halide 14's strided-load miscompile (docs/
        // SEARCH.md, "Stack alignment on AVX-512"), as replay checks them: placements() skips
        // the checks of uses in other Funcs on large pipelines, and what it misses must not
        // reach the user as a crash.
        p.beam.erase(std::remove_if(p.beam.begin(), p.beam.end(),
                                    [&](const StatePtr &b) {
                                        return space_.is_complete(*b) &&
                                               detail::first_strided_load_hazard(space_.dag(),
                                                                                 *b) >= 0;
                                    }),
                     p.beam.end());
        if (p.beam.empty() || !space_.is_complete(*p.beam[0])) {
            st_.func = -1;
            return false;
        }
        // The near-cost pass's pick must be clearly cheaper: below the margin the model
        // cannot tell the two apart (BeamSearchOptions::near_cost_margin).
        const double margin = near ? opt_.near_cost_margin : opt_.lookahead_margin;
        const bool take = kind != Kind::regular ? p.beam[0]->cost < best_->cost * (1 - margin)
                                                : !best_ || better_state(p.beam[0], best_);
        if (take) best_ = p.beam[0];
        if (kind == Kind::regular) st_.best_cost_per_pass.push_back(p.beam[0]->cost);
        if (kind == Kind::regular || take) {
            st_.final_beam.clear();
            for (const StatePtr &b : p.beam)
                if (space_.is_complete(*b)) st_.final_beam.push_back(b);
        }
        if (log_) {
            std::ostringstream o;
            if (near)
                o << "near-cost pass (coarse, costs within " << opt_.near_cost * 100 << "% alike)";
            else if (look)
                o << "lookahead pass (width " << opt_.lookahead_width << ")";
            else if (kind == Kind::outlook)
                o << "allocator outlook pass";
            else
                o << "pass " << pass + 1 << "/" << passes_ << (p.so.coarse ? " (coarse)" : "");
            o << ": best predicted " << p.beam[0]->cost * 1e3 << " ms (" << since(pass_start)
              << " s)"
              << (kind == Kind::regular ? ""
                  : take                ? "; taken"
                                        : "; not taken");
            log_(o.str());
        }
        if (kind != Kind::regular) return false; // the last passes
        if (finishing_) return false;            // the time is up: no further passes
        // Structures of the best states of this pass constrain the next one.
        allow_structures_of(space_, p.beam, opt_.keep_structures, allowed_);
        return true;
    }

    /** The time ran out at `step`: with a schedule from an earlier pass, abandons this one
     * (false); in the first pass, finishes it greedily with coarse tilings (true). */
    bool run_out_of_time(const Pass &p, int step) {
        st_.time_limited = true;
        std::ostringstream o;
        o << "time limit (" << opt_.time_limit_s << " s) reached in pass " << p.index + 1
          << " at step " << step + 1 << " of " << steps_;
        if (best_) {
            note(o.str() + "; using the best schedule of the passes before");
            abandoned_ = true;
            return false;
        }
        note(o.str() + "; finishing this pass greedily with coarse tilings");
        finishing_ = true;
        return true;
    }

    /** One step: the beam's children for the step's Func, the best of them the next beam. */
    void expand(Pass &p, int step) {
        // Memory: the tiling cache, the beam, the best children and one batch.
        if (space_.cache_bytes() > budget_ / 4) {
            space_.clear_caches();
            st_.cache_drops++;
        }
        int keep = 0, batch = 0;
        bool two_batches = false;
        const int narrowed = p.bounds.narrowed;
        bound_step(opt_, budget_, space_.cache_bytes(), p.beam.size(), p.per_child, finishing_,
                   p.pass_end - since(start_),
                   p.parents_done > 0 ? p.parent_seconds / double(p.parents_done) : -1,
                   steps_ - step, keep, batch, two_batches, p.bounds);
        const double parents = double(p.beam.size()) * (p.per_child * 1.05 + 1024);
        auto step_start = Clock::now();
        const bool filter =
            p.kind == Kind::regular && p.index > opt_.free_passes && !allowed_[step + 1].empty();
        // The lookahead pass keeps more by partial cost, then the beam by the next step's.
        // Only where memory is ample: the widened beam is not counted in the bound.
        const bool look = p.kind == Kind::lookahead && step + 1 < steps_ && !finishing_ &&
                          keep > 1 && two_batches && p.bounds.narrowed == narrowed;
        const int look_keep = keep;
        if (look) keep *= std::max(1, opt_.lookahead_width);
        // The structure share is of at most structure_cap_beam states.
        const int share_of =
            opt_.structure_cap_beam > 0 ? std::min(keep, opt_.structure_cap_beam) : keep;
        const size_t per_structure = opt_.structure_share > 0
                                         ? size_t(std::ceil(share_of * opt_.structure_share))
                                         : size_t(keep);
        const size_t per_cost = opt_.equal_cost_share > 0
                                    ? size_t(std::ceil(keep * opt_.equal_cost_share))
                                    : size_t(keep);
        BestChildren kept(eval_, queue_, &st_, size_t(keep), size_t(batch), per_structure, per_cost,
                          p.kind == Kind::near ? opt_.near_cost : 0, two_batches);
        std::unique_ptr<ChildrenAhead> ahead; // makes children beside this thread
        StatePtr dropped_pick; // one child that dropout dropped, uniformly (reservoir)
        int64_t dropped = 0, matching = 0;
        bool measured = false;
        auto take = [&](bool use_filter) {
            auto emit = [&](StatePtr c) {
                if (!measured) {
                    p.per_child = std::max(p.per_child, child_bytes(*c, st_.func) * 1.3);
                    measured = true;
                }
                if (use_filter && !allowed_[step + 1].count(c->placement_hash)) return;
                matching++;
                if (opt_.random_dropout < 100 && int(rng_.below(100)) >= opt_.random_dropout) {
                    if (pick_rng_.below(uint64_t(++dropped)) == 0) dropped_pick = std::move(c);
                    return;
                }
                kept.add(std::move(c));
            };
            // Filtered, only the allowed placements' children are made; when none of them is
            // under the limits, all are made and filtered as they come.
            kept.set_ahead(nullptr);
            ahead = std::make_unique<ChildrenAhead>(
                p.beam.size(),
                [&](size_t i, std::vector<StatePtr> &out) {
                    auto add = [&out](StatePtr c) { out.push_back(std::move(c)); };
                    if (!use_filter || !space_.children(*p.beam[i], p.so, add, allowed_[step + 1]))
                        space_.children(*p.beam[i], p.so, add);
                },
                // Children made ahead wait outside the batches: only where memory is ample.
                // Eight parents ahead (docs/SEARCH.md, session 44: 4, 8 and 16 timed).
                make_beside_ && two_batches && p.bounds.narrowed == narrowed, 8);
            kept.set_ahead(ahead.get());
            for (size_t i = 0; i < p.beam.size(); i++) {
                for (StatePtr &c : ahead->take(i))
                    emit(std::move(c));
                double held = parents + double(kept.held() + ahead->buffered()) * p.per_child +
                              space_.cache_bytes();
                st_.peak_held_bytes = std::max(st_.peak_held_bytes, held);
                // Out of time in the first pass: the children made so far must do.
                if (!finishing_ && !best_ && !kept.empty() && i + 1 < p.beam.size() &&
                    out_of_time())
                    break;
            }
        };
        take(filter);
        if (filter && matching == 0) take(false); // no child continues a kept structure
        if (kept.empty() && dropped_pick) kept.add(std::move(dropped_pick));
        p.parents_done += int64_t(p.beam.size());
        p.beam = kept.take();
        kept.set_ahead(nullptr);
        ahead.reset();
        if (look) look_ahead(p, size_t(look_keep));
        p.parent_seconds += since(step_start);
        if (p.trace) trace_step(p, step);
    }

    /** Keeps the `keep` states of the beam whose cheapest child for the next Func (coarse
     * tilings) is cheapest; a state with no child keeps its own cost. */
    void look_ahead(Pass &p, size_t keep) {
        if (p.beam.size() <= keep) return;
        SearchSpaceOptions so = p.so;
        so.coarse = true;
        std::vector<std::pair<double, size_t>> ahead;
        std::vector<StatePtr> kids;
        std::vector<State *> group;
        for (size_t i = 0; i < p.beam.size(); i++) {
            kids.clear();
            space_.children(*p.beam[i], so, [&](StatePtr c) { kids.push_back(std::move(c)); });
            double best = p.beam[i]->cost;
            if (!kids.empty()) {
                group.clear();
                for (const StatePtr &c : kids)
                    group.push_back(c.get());
                eval_.evaluate(group);
                st_.states_evaluated += int64_t(group.size());
                best = kids[0]->cost;
                for (const StatePtr &c : kids)
                    best = std::min(best, c->cost);
            }
            ahead.push_back({best, i});
        }
        std::stable_sort(ahead.begin(), ahead.end());
        std::vector<StatePtr> beam;
        for (size_t k = 0; k < keep; k++)
            beam.push_back(std::move(p.beam[ahead[k].second]));
        p.beam = std::move(beam);
    }

    /** Follows the traced schedule one step (BeamSearchOptions::trace) and logs where it is:
     * its prefix's cost and rank against the beam, whether the beam holds it or another state
     * with its placements (other tilings), and whether the step offered it from the traced
     * prefix itself (a consumer's tiling that only a re-tiling for a later producer makes is
     * not). The trace goes on either way. */
    void trace_step(Pass &p, int step) {
        const int func = space_.order()[size_t(step)];
        const FuncSched &want = (*opt_.trace)[size_t(func)];
        bool offered = false;
        std::vector<StatePtr> placed_alike; // children placing the Func as the trace does
        space_.children(*p.trace, p.so, [&](StatePtr c) {
            if (c->decisions[size_t(func)] == want) offered = true;
            if (placement_key(c->decisions[size_t(func)]) == placement_key(want))
                placed_alike.push_back(std::move(c));
        });
        double alike_best = -1;
        if (!placed_alike.empty()) {
            std::vector<State *> group;
            for (const StatePtr &c : placed_alike) {
                c->dirty.clear();
                for (int i = 0; i <= step; i++)
                    c->dirty.push_back(space_.order()[size_t(i)]);
                group.push_back(c.get());
            }
            eval_.evaluate(group);
            for (const State *c : group)
                if (alike_best < 0 || c->cost < alike_best) alike_best = c->cost;
        }
        StatePtr t = space_.make_child(*p.trace, want);
        t->dirty.clear();
        for (int i = 0; i <= step; i++)
            t->dirty.push_back(space_.order()[size_t(i)]);
        eval_.evaluate({t.get()});
        size_t better_states = 0;
        bool held = false;
        const State *same_structure = nullptr;
        for (const StatePtr &b : p.beam) {
            if (b->cost < t->cost) better_states++;
            if (b->decisions == t->decisions) held = true;
            if (!same_structure && b->placement_hash == t->placement_hash) same_structure = b.get();
        }
        std::ostringstream o;
        o << "trace: pass " << p.index + 1 << " step " << step + 1 << " ("
          << space_.dag().funcs[size_t(func)].name << "): prefix predicted " << t->cost * 1e3
          << " ms, " << better_states << " of " << p.beam.size() << " beam states cheaper (beam "
          << (p.beam.empty() ? 0.0 : p.beam.front()->cost * 1e3) << " - "
          << (p.beam.empty() ? 0.0 : p.beam.back()->cost * 1e3) << " ms); "
          << (held ? "in the beam" : "not in the beam");
        if (!held && same_structure)
            o << " (its placements are, with other tilings, at " << same_structure->cost * 1e3
              << " ms)";
        else if (!held)
            o << " (nor are its placements)";
        if (!offered) o << "; not offered from its own prefix";
        if (alike_best >= 0)
            o << "; its prefix's cheapest child placed alike: " << alike_best * 1e3 << " ms";
        if (opt_.trace_costs) {
            double funcs = 0;
            for (size_t f = 0; f < t->func_scores.size(); f++) {
                if (t->func_scores[f].cost == 0) continue;
                funcs += t->func_scores[f].cost;
                o << "\n    " << space_.dag().funcs[f].name << " " << t->func_scores[f].cost * 1e3
                  << " ms";
            }
            o << "\n    allocator " << (t->cost - funcs) * 1e3 << " ms";
        }
        if (log_) log_(o.str());
        p.trace = t;
    }

    /** The notes of a pass the memory bound or the time limit narrowed. */
    void bound_notes(const Pass &p) {
        if (p.bounds.narrowed > 0) {
            st_.narrowed_steps += p.bounds.narrowed;
            std::ostringstream o;
            o << "memory bound (" << mib(budget_) << "): pass " << p.index + 1 << " narrowed "
              << p.bounds.narrowed << " of " << steps_ << " steps (beam down to "
              << p.bounds.min_keep << ", batches of " << p.bounds.min_batch << "; ~"
              << p.per_child / 1024 << " KiB per state)";
            note(o.str());
        }
        if (p.bounds.paced > 0) {
            std::ostringstream o;
            o << "time limit (" << opt_.time_limit_s << " s): pass " << p.index + 1
              << " narrowed the beam on " << p.bounds.paced << " of " << steps_
              << " steps (down to " << p.bounds.min_paced << ") to end in time";
            note(o.str());
        }
    }

    const SearchSpace &space_;
    StateEvaluator &eval_;
    const BeamSearchOptions &opt_;
    SearchStats &st_;
    const std::function<void(const std::string &)> &log_;
    const Clock::time_point start_ = Clock::now();
    const int beam_size_, passes_, steps_;
    const double budget_;
    Rng rng_, pick_rng_;
    /** Scores and selects children beside the thread that makes them. */
    JobQueue queue_{opt_.score_beside && std::thread::hardware_concurrency() > 1};
    const bool make_beside_ = opt_.make_beside && std::thread::hardware_concurrency() > 1;
    StatePtr best_;
    /** Placement-prefix hashes allowed at each depth (empty set = anything goes). */
    std::vector<std::set<uint64_t>> allowed_;
    /** The time ran out during the first pass: it finishes greedily, with coarse tilings. */
    bool finishing_ = false;
    bool abandoned_ = false;
};

} // namespace

StatePtr beam_search(const SearchSpace &space, StateEvaluator &eval, const BeamSearchOptions &opt,
                     SearchStats *stats, const std::function<void(const std::string &)> &log) {
    SearchStats scratch;
    return BeamSearchRun(space, eval, opt, stats ? *stats : scratch, log).run();
}

} // namespace sextant
