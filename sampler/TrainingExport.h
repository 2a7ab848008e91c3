// TrainingExport: turns stored measurements into the trainer's TrainingSamples by
// re-featurizing each successful record from its ScheduleText with the current featurizer
// (rebuild the random pipeline -> PipelineDag -> Decisions -> LoopNests -> feature rows). So
// old measurements stay usable when the feature schema changes. Builds Halide pipelines (for
// their DAGs) in child processes; compiles nothing.
#pragma once

#include "costmodel/TrainingData.h"
#include "sampler/SampleStore.h"

#include <string>
#include <vector>

namespace sextant {

struct TrainingExportStats {
    int64_t samples = 0;        ///< lines written
    int64_t failed_records = 0; ///< records with an error (not exported)
    /** Timed-out records exported with runtime 2x the slowest finished schedule of their
     * workload (counted in samples too). */
    int64_t censored_records = 0;
    int64_t skipped_records = 0;   ///< ok records that could not be re-featurized
    int64_t skipped_workloads = 0; ///< workloads that could not be rebuilt
    std::vector<std::string> warnings;
};

/** The samples of one random workload (kind "random"); throws UserError if it cannot be
 * rebuilt (unknown kind, changed generator). Records that fail to replay are counted in
 * stats and skipped. */
std::vector<TrainingSample> workload_training_samples(const WorkloadInfo &w,
                                                      const std::vector<SampleRecord> &records,
                                                      TrainingExportStats &stats);

/** Writes every successful record of the store as JSON lines (TrainingData.h format) with
 * pipeline = workload identity and runtime_seconds = runtime_min_s, plus timed-out records
 * with a censored runtime (see censored_records). Each workload is
 * re-featurized in its own child process (Halide names Funcs uniquely per process). */
TrainingExportStats export_training(SampleStore &store, const std::string &path);

} // namespace sextant
