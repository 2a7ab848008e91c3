// BeamSearch: coarse-to-fine beam search over SearchSpace, scored through a StateEvaluator.
//
// Pass 1 searches placements with a few tilings per stage (coarse). Each later pass searches
// the full tiling space but only under placement prefixes that led to the best states of the
// pass before, so the fine passes spend their beam on tilings of promising structures. Within a
// beam, duplicate states (same decisions) are dropped. Random dropout (with an explicit seed)
// gives diverse schedules for sampling; the same inputs and seed give the same result.
#pragma once

#include "search/SearchSpace.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sextant {

struct BeamSearchOptions {
    /** Beam width; 1 = greedy (and a single pass). */
    int beam_size = 32;
    /** Passes; the first is coarse when there are several, the next `free_passes` search
     * every structure, the rest refine the best structures of the passes before. Three since
     * session 31 (was five, all fine passes refining the coarse pass's structures): the same
     * picks as five with `free_passes` on the bench pipelines, in 60-80% of the time
     * (docs/SEARCH.md). */
    int num_passes = 3;
    /** Percent chance that each candidate is kept (100 = no dropout). */
    int random_dropout = 100;
    uint64_t seed = 0;
    /** Root allocation limit in bytes (<= 0: none). */
    double memory_limit_bytes = 0;
    /** Share of the beam one placement structure (State::placement_hash) may hold while
     * states of other structures are left to fill it (<= 0: no cap). Bench iir_blur at beam
     * 32: without it every state after `up`'s step computed `up` at root (32 tilings of one
     * structure, 129.35-129.51 ms predicted), and the schedule with `up` per channel and
     * `down` per strip of it (63 ms predicted; 47 ms vs 158 in fresh processes, docs/SEARCH.md)
     * was only found at beam 128. */
    double structure_share = 0.25;
    /** The share above is of at most this many states: a wider beam keeps more structures,
     * not more states of each (0: of the whole beam). At beam 128 a quarter of the beam let
     * four structures fill it on bench nl_means, and the pick ran 100 ms against beam 32's 29;
     * with the share of 32 states it runs 27 ms (docs/BENCHMARKS.md, session 40). */
    int structure_cap_beam = 32;
    /** At most this share of the beam (at least one state) may hold one predicted cost while
     * states of other costs are left. Children with exactly the same cost are nearly always
     * the same schedule for the model (a level or a split of a loop of one iteration, a tiling
     * of a stage whose cost does not depend on it) and crowd out the structures a later
     * producer would make cheaper: on bench nl_means 24 of the 32 states after `patch_x`'s
     * step were predicted exactly 108.3 ms, and the state computing the weights per search
     * offset (109.4 ms then; that structure completed is predicted 93 ms, the pick of the time
     * 173 ms) fell out of the beam. */
    double equal_cost_share = 0.0625;
    /** After the regular passes, one more coarse pass in which costs within this ratio of
     * each other count as one for the equal-cost share (0: no such pass). A beam of states
     * predicted within 0.01% of one another is one schedule to the model, yet they are not
     * exactly equal and so escape the share: on bench camera_pipe_planar the coarse pass's
     * beam held such runs and ended at 276.9 ms predicted, the fine passes at 168.4; with the
     * runs crowded out the coarse pass ends at 92.3 ms, and the pick runs 36.5 ms against
     * 51.3 (docs/SEARCH.md, "Near-equal costs"). Its structures do not steer later passes.
     * 0 here; the plugin's default is kNearCost (SEXTANT_NEAR_COST_PASS=0 turns it off). A
     * pick taken because it is predicted much cheaper is where the model's worst
     * underestimates live: on random pipeline 200127 it took a schedule predicted 69 ms that
     * ran over 120 s, until session 42 priced regions that change size (region_at). */
    double near_cost = 0;
    static constexpr double kNearCost = 1e-4;
    /** ... and its pick replaces the regular passes' only when predicted at least this share
     * cheaper. Below a few percent the model's ranking is a coin toss: the same crowding in
     * every pass moved four bench picks by 0.6-1.1% predicted, and they ran 1.16-2.38x slower. */
    double near_cost_margin = 0.05;
    /** After the regular passes (and the near-cost pass), one more pass that searches every
     * structure with a one-step lookahead: each step keeps `lookahead_width` times the beam by
     * predicted cost, then keeps the beam's width of them by the cost of each state's cheapest
     * child for the next Func (made with coarse tilings). A prefix that one decision makes
     * dearer and the next makes cheaper is how the regular passes lose the schedules their
     * model prefers (docs/SEARCH.md, "Where the beam loses what its model prefers"). Its pick
     * replaces the regular passes' only when predicted `lookahead_margin` cheaper. */
    bool lookahead_pass = false;
    int lookahead_width = 2;
    double lookahead_margin = 0.05;
    /** After those, one more fine pass whose evaluator prices a prefix's allocator as if
     * every Func not yet placed may be a root buffer (StateEvaluator::set_allocator_outlook).
     * The producers come after their consumers, so the largest buffers of a pyramid are
     * placed last, and until then the smaller ones' page faults are charged as if nothing
     * will raise glibc's thresholds (docs/SEARCH.md, "The allocator outlook pass"). The
     * outlook errs the other way where the large Funcs end up inlined, so its pick replaces
     * the others' only when predicted `lookahead_margin` cheaper. */
    bool allocator_outlook_pass = false;
    /** States whose placement prefix matches the best `keep_structures` of a pass go on. */
    int keep_structures = 4;
    /** Fine passes after the coarse first one that search every structure, as a one-pass
     * search does; the passes after them continue only the best structures of every pass
     * before. The coarse pass's tilings misprice whole structures: bench max_filter's default
     * search (AVX2) ended at 218.9 ms predicted with only the coarse pass's structures to
     * refine, 120.7 ms in one fine pass. */
    int free_passes = 1;
    /** Bytes the search may hold at once (<= 0: no bound): the beam, the children waiting to
     * be scored, the best children so far, and the SearchSpace's tiling cache. Children are
     * made, scored and dropped in batches; when a step's states are so large that the beam
     * and one batch would not fit, that step's batch and then its beam narrow (down to 1),
     * and the tiling cache is dropped when it passes a quarter of the bound. Counted from the
     * states' sizes, not from the process (which also holds the DAG, Halide and the model). */
    double memory_bytes = double(1) * 1024 * 1024 * 1024;
    /** Wall-clock seconds for the whole search (<= 0: no limit). When it runs out, the best
     * complete state of the passes done so far is returned; during the first pass, the
     * remaining steps finish greedily (beam 1, coarse tilings) so there is one. */
    double time_limit_s = 60;
    /** Children selected together at most (the best `beam_size` of the states kept so far
     * and of this many new ones are kept). */
    int max_batch = 2048;
    /** Score children on a second thread while the search makes the next ones (where the
     * machine has more than one core): the same states are kept either way. The
     * StateEvaluator is then called from that thread, one call at a time, and must only read
     * the states' decisions and nests (and set their costs). */
    bool score_beside = true;
    /** Make the next parents' children on a helper thread while the search takes the last
     * ones (ChildrenAhead; where the machine has more than one core): the same children
     * reach the beam in the same order. SearchSpace::children must then be safe to call from
     * two threads at once (its caches lock). */
    bool make_beside = true;
    /** What each pass offers (its `coarse` and `memory_limit_bytes` are set per pass). */
    SearchSpaceOptions space;
    /** If set, every pass starts from this state (its first `num_decided` Funcs decided, as
     * SearchSpace::make_child makes them) instead of the empty schedule: the search completes
     * a given prefix (autotuning's mutations). */
    StatePtr start;
    /** If set (SEXTANT_TRACE_SCHEDULE), a complete schedule to follow through every pass:
     * after each step the log says what its prefix is predicted to cost, where that ranks
     * against the beam, whether the beam holds it and whether the step offered it at all. It
     * explains why a search misses a schedule its own model prefers. */
    const Decisions *trace = nullptr;
    /** With a trace: also log each traced prefix's cost per Func and the allocator's share
     * (the state's cost less its Funcs'), to see which decision a later one makes cheaper. */
    bool trace_costs = false;
};

struct SearchStats {
    int64_t states_evaluated = 0;
    double seconds_total = 0;
    double seconds_evaluating = 0;
    std::vector<double> best_cost_per_pass;
    /** The time limit cut the search short (stats->notes says where). */
    bool time_limited = false;
    /** Steps whose batch or beam the memory bound narrowed. */
    int narrowed_steps = 0;
    /** Times the tiling cache was dropped to stay under the memory bound. */
    int cache_drops = 0;
    /** Largest estimate of the bytes the search held at once. */
    double peak_held_bytes = 0;
    /** The complete states of the last pass's beam, best first (the returned state is the
     * best of every pass, usually the first of these): what on-policy sampling measures
     * besides the pick. */
    std::vector<StatePtr> final_beam;
    /** What the bounds did, one line each, for the log. */
    std::vector<std::string> notes;
    /** Where the search is (for error messages): pass (1-based; 0 before the first), step
     * (0-based) and the Func being decided (-1: none). */
    int pass = 0, step = 0, func = -1;
};

/** Runs the search; returns the best complete state (null only if a step had no legal child,
 * which is a bug in SearchSpace). `stats` may be null; `log` (may be empty) gets progress.
 * Pass a `stats` to know where the search was if it throws. */
StatePtr beam_search(const SearchSpace &space, StateEvaluator &eval, const BeamSearchOptions &opt,
                     SearchStats *stats, const std::function<void(const std::string &)> &log = {});

} // namespace sextant
