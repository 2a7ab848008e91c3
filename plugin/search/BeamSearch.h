// BeamSearch: coarse-to-fine beam search over SearchSpace, scored through a StateEvaluator.
//
// Pass 1 searches placements with a few tilings per stage (coarse). Each later pass searches
// the full tiling space but only under placement prefixes that led to the best states of the
// pass before, so the fine passes spend their beam on tilings of promising structures. Within a
// beam, duplicate states (same decisions) are dropped. Random dropout (with an explicit seed)
// gives diverse schedules for sampling; the same inputs and seed give the same result.
#pragma once

#include "plugin/search/SearchSpace.h"

#include <cstdint>
#include <functional>

namespace sextant {

struct BeamSearchOptions {
    /** Beam width; 1 = greedy (and a single pass). */
    int beam_size = 32;
    /** Passes; the first is coarse when there are several. */
    int num_passes = 5;
    /** Percent chance that each candidate is kept (100 = no dropout). */
    int random_dropout = 100;
    uint64_t seed = 0;
    /** Root allocation limit in bytes (<= 0: none). */
    double memory_limit_bytes = 0;
    /** States whose placement prefix matches the best `keep_structures` of a pass go on. */
    int keep_structures = 4;
};

struct SearchStats {
    int64_t states_evaluated = 0;
    double seconds_total = 0;
    double seconds_evaluating = 0;
    std::vector<double> best_cost_per_pass;
};

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 1) {}
    uint64_t next();
    /** Uniform in [0, n). */
    uint64_t below(uint64_t n) { return next() % n; }

private:
    uint64_t state_;
};

/** Runs the search; returns the best complete state. `log` (may be empty) gets progress. */
StatePtr beam_search(const SearchSpace &space, StateEvaluator &eval, const BeamSearchOptions &opt,
                     SearchStats *stats, const std::function<void(const std::string &)> &log = {});

} // namespace sextant
