// Remeasure: the noise ceiling of a sample set. Picks a random fraction of a SampleStore's
// random-pipeline workloads and measures every successful record of each again, `rounds`
// times, each time in fresh processes with the timing protocol (as the sampler does), and
// writes one JSON line per record: its stored runtime and the new ones. How often two
// measurements of the same pair of schedules agree on their order, by runtime gap, is then
// what scripts/noise_ceiling.py tabulates (docs/SAMPLING.md).
#pragma once

#include "sampler/ChildJobs.h"
#include "sampler/SampleStore.h"

#include <cstdint>
#include <string>

namespace sextant {

struct RemeasureOptions {
    double fraction = 0.05; ///< of the workloads (at least one)
    uint64_t seed = 1;      ///< which workloads
    int rounds = 2;         ///< fresh measurements per record
    int jobs = 1;           ///< MeasurePool jobs (compiles overlap, timings never)
    TimingOptions timing;   ///< threads <= 0: the workload's machine cores
    std::string out_path;
    bool quiet = false;
};

struct RemeasureSummary {
    int64_t workloads = 0, records = 0, failed = 0;
    double seconds = 0;
};

/** Remeasures into opt.out_path (JSON lines: workload, hash, source, stored_s, runs_s[],
 * minflt_per_run[], busy_fraction[], error). */
RemeasureSummary remeasure_sample_set(SampleStore &store, const RemeasureOptions &opt);

} // namespace sextant
