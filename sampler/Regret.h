// Regret: a learned model judged by what its search picks, the measure model selection needs
// (pairwise accuracy does not predict it, docs/COSTMODEL.md). For each seed of a fixed range of
// random pipelines held out from training, the beam-search picks of the analytical model and
// of the learned model are compiled beside the pipeline's best known schedule (the fastest
// record of a SampleStore of those seeds, which no training set may contain), and the distinct
// ones are timed interleaved, `rounds` fresh-process rounds, with the timing protocol. Each
// schedule's time is the median over rounds of the round's best run, so a single slow process
// does not decide. One JSON line per seed, appended as it is done (a rerun skips the seeds its
// output already has for the same weights); scripts/regret_report.py summarizes them.
#pragma once

#include "random_pipelines/Options.h"
#include "sampler/ChildJobs.h"
#include "sampler/SampleStore.h"
#include "search/Candidates.h"

#include <cstdint>
#include <string>

namespace sextant {

struct RegretOptions {
    uint64_t from = 0, to = 0;     ///< seeds [from, to)
    std::string weights;           ///< the learned model judged (required)
    std::string out_path;          ///< JSON lines (appended)
    int rounds = 3;                ///< fresh timed processes per schedule, interleaved
    TimingOptions timing;          ///< threads <= 0: parallelism
    double search_timeout_s = 300; ///< per search
    int parallelism = 0;           ///< MachineInfo cores; <= 0: all online CPUs
    int64_t llc_bytes = 0;         ///< MachineInfo cache; <= 0: the largest sysfs reports
    BeamSearchOptions search;      ///< its beam width, passes and time limit: regret_search
    random_pipelines::RandomPipelineOptions generator;
    std::string time_exe; ///< "" = this build's sextant-time
    bool quiet = false;
    /** 0: every seed; 1: the even seeds only (the selection half of scripts/regret_report.py);
     * 2: the odd seeds only (the test half, for judging a candidate to ship, once). */
    int half = 0;
    /** How the learned model picks (the plugin's SEXTANT_LEARNED_SEARCH): > 0 = among this
     * many analytical candidates (ranked_pick), 0 = by its own beam search. */
    int learned_candidates = 4;
    /** Ranking those, the trust margin (the plugin's SEXTANT_LEARNED_MARGIN as a fraction);
     * < 0 = the plugin's default. */
    double learned_margin = -1;
};

struct RegretSummary {
    int64_t pipelines = 0; ///< seeds judged by this run
    int64_t failed = 0;    ///< of which a search or a pick failed
    int64_t skipped = 0;   ///< seeds already in the output
    double seconds = 0;
};

/** The search both of the judge's picks come from: the plugin's (its defaults' near-cost,
 * lookahead and allocator-outlook passes) with `sampler`'s beam width, passes and time limit.
 * Without those passes the picks were not the plugin's (seed 200942: the learned mode's pick
 * ran 10x the analytical one in the judge, while the plugin keeps the beam pick there). */
BeamSearchOptions regret_search(const BeamSearchOptions &sampler);

/** Judges seeds [opt.from, opt.to). `best_known`, if given, holds measured schedules of these
 * seeds: the fastest of each pipeline is timed beside the picks. */
RegretSummary run_regret(const RegretOptions &opt, SampleStore *best_known);

} // namespace sextant
