// Candidates: several distinct good schedules of one pipeline instead of one — the beam-search
// best, the greedy one, then searches with random dropout under successive seeds — deduplicated
// by ScheduleText. The sampler measures them all; autotuning (SEXTANT_CANDIDATES) measures the
// ones the model ranks best. Deterministic: the same DAG, evaluator and options give the same
// list in the same order, so a resumed run asks for the same schedules.
#pragma once

#include "search/BeamSearch.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sextant {

struct CandidateSearchOptions {
    /** Distinct schedules wanted. */
    int count = 10;
    /** Options of the first ("beam") search; its dropout and seed apply to it alone. */
    BeamSearchOptions first;
    /** Beam width of the dropout searches (1 = greedy with dropout, as Adams2019's autotuning
     * loop samples; wider gives better but fewer distinct schedules). */
    int dropout_beam_size = 1;
    /** Dropout search k (0-based) uses seed seed_offset + k + 1, so batches with different
     * offsets explore different schedules. */
    uint64_t seed_offset = 0;
    /** Each search's pick polished by its evaluator (polish_pick) with this margin; < 0:
     * not polished. The plugin's learned mode sets it as the analytical search polishes its
     * own pick, so the learned model ranks the schedules the analytical model would give. */
    double polish_margin = -1;
    /** Searches to try before giving up on reaching `count` distinct schedules. */
    int max_attempts_factor = 4;
    /** On-policy sampling (DAgger): right after the first search's pick, up to this many more
     * states of its last beam (sources "final:<beam>:<rank>", rank 1 = second best), then the
     * pick and up to as many states of a search with beam 8 ("final:8:<rank>"). 0: none. */
    int final_beam = 0;
    /** Autotuning's mutations: ScheduleTexts (the best measured so far) each changed at one
     * Func — another legal placement or tiling of it, drawn at random from the search space
     * with the Funcs before it kept — and completed by a beam-`dropout_beam_size` search of
     * the model from there (sources "mutate:<k>:<func>", k the text's index). Offered before
     * the dropout searches, `mutations` of them in all, spread over the texts. */
    std::vector<std::string> mutate_texts;
    int mutations = 0;
    /** Autotuning's tweaks: the first of mutate_texts (the fastest measured) with one Func's
     * tiling moved to a near one at the same place (one or two of its loop splits, vector
     * width, unrolling or parallel loops changed) and every other Func kept where that is
     * still legal (sources "tweak:<step>:<func>"): the local steps of a hill climb, which a
     * mutation's re-search of the rest by the model undoes. Offered after the mutations. */
    int tweaks = 0;
    /** Neighbours of the first search's (polished) pick, right after it: this many tweaks of
     * it and as many mutations (sources "near-tweak:..." and "near-mutate:..."), made and
     * completed by the proposer. The learned mode's ranking of the pick's neighbourhood
     * (SEXTANT_LEARNED_NEIGHBOURS): the ranking model moves the pick by one Func's tiling or
     * placement, judging complete schedules only. 0: none. */
    int neighbours = 0;
    /** The sampler's make_candidates with a learned model (the regret judge's learned pick):
     * > 0 = instead of searching with it, the one schedule ranked_pick chooses among this many
     * analytical candidates (source "ranked:<its source>"), as the plugin's learned mode does
     * (SEXTANT_LEARNED_SEARCH). 0 = the learned model searches. */
    int ranked = 0;
    /** ranked_pick keeps the first candidate (the proposer's beam pick) unless the ranking
     * model prices another at least this fraction cheaper than it (0.05: 5%); 0 = the
     * cheapest wins. The plugin's learned mode: SEXTANT_LEARNED_MARGIN. */
    double trust_margin = 0;
};

/** One schedule of a pipeline: what the plugin writes out with SEXTANT_CANDIDATES, what the
 * sampler measures and stores. */
struct SearchCandidate {
    /** "beam", "greedy" or "dropout:<percent>:<seed>"; the sampler prefixes "learned:" to
     * those its learned model found. */
    std::string source;
    std::string text; ///< ScheduleText
    std::string hash; ///< schedule_hash(text)
    /** The complete state (state->cost: its predicted seconds); null once it has crossed a
     * process boundary as text. */
    StatePtr state;
};

/** Up to opt.count distinct candidates. `make_evaluator` gives a fresh evaluator per search
 * (evaluators may cache per-search data). Searches that find no schedule are skipped.
 * `total`, if given, gets the sums over all searches (best_cost_per_pass: the first's). */
/** Up to `count` distinct mutations of `text` (see CandidateSearchOptions::mutate_texts),
 * from a generator seeded with `seed`. */
std::vector<SearchCandidate> mutate_schedule(const PipelineDag &dag, const SearchSpace &space,
                                             StateEvaluator &eval, const std::string &text,
                                             int count, const BeamSearchOptions &complete,
                                             uint64_t seed, const std::string &source_prefix);

/** Up to `count` distinct tweaks of `text` (see CandidateSearchOptions::tweaks), from a
 * generator seeded with `seed`; children are enumerated with `space_opt` (fine pass). */
std::vector<SearchCandidate> tweak_schedule(const PipelineDag &dag, const SearchSpace &space,
                                            StateEvaluator &eval, const std::string &text,
                                            int count, const SearchSpaceOptions &space_opt,
                                            uint64_t seed, const std::string &source_prefix);

std::vector<SearchCandidate>
search_candidates(const PipelineDag &dag, const SearchSpace &space,
                  const std::function<std::unique_ptr<StateEvaluator>()> &make_evaluator,
                  const CandidateSearchOptions &opt, SearchStats *total = nullptr);

/** A pick made by ranking: one model proposes, another chooses. */
struct RankedPick {
    /** The candidates as proposed (search_candidates' order; states scored by the proposer). */
    std::vector<SearchCandidate> candidates;
    /** Each candidate's cost under the ranking model, in candidates' order. */
    std::vector<double> rank_costs;
    /** Index of the chosen candidate (the lowest rank cost, the earlier on a tie; the first
     * unless that is opt.trust_margin cheaper than the first's), -1 if none. */
    int chosen = -1;
    /** The chosen schedule replayed and scored whole by the ranking model (null if none). */
    StatePtr state;
};

/** The learned model's default way to schedule (docs/COSTMODEL.md, "Ranking the analytical
 * model's candidates"): `propose` searches as search_candidates does with `opt` (its beam
 * pick, greedy pick and dropout picks, `opt.count` distinct ones), and `rank` scores each
 * complete candidate whole and chooses the cheapest. The search never walks through partial
 * states only the ranking model likes, and the ranking model judges complete schedules of the
 * kind it was trained on (the sampler's candidates are the same searches). */
RankedPick ranked_pick(const PipelineDag &dag, const SearchSpace &space,
                       const std::function<std::unique_ptr<StateEvaluator>()> &propose,
                       StateEvaluator &rank, const CandidateSearchOptions &opt,
                       SearchStats *total = nullptr);

} // namespace sextant
