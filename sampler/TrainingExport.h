// TrainingExport: turns stored measurements into the trainer's TrainingSamples by
// re-featurizing each successful record from its ScheduleText with the current featurizer
// (rebuild the pipeline -> PipelineDag -> Decisions -> LoopNests -> feature rows: a random one
// here, a user one in its own generator with the plugin). So
// old measurements stay usable when the feature schema changes. Builds Halide pipelines (for
// their DAGs) in child processes; compiles nothing.
#pragma once

#include "costmodel/TrainingData.h"
#include "costmodel/TrainingReplay.h"
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

/** The reply (costmodel/TrainingReplay.h) for `records` of a workload of kind "user": its
 * generator (named in the workload's options, with its arguments, target and machine) is run
 * with `plugin` and SEXTANT_EXPORT_TRAINING, so the pipeline is built as the user builds it;
 * nothing is compiled. A generator path that does not exist is looked for by file name in
 * `generators_dir` (when not empty). Throws UserError if the generator or plugin is missing;
 * a generator that fails adds a warning naming it and its log's last lines. */
std::string user_workload_reply(const WorkloadInfo &w, const std::vector<MeasuredSchedule> &records,
                                const std::string &plugin, const std::string &generators_dir,
                                double timeout_s);

/** The plugin this build made (the one --export-training runs user generators with). */
std::string plugin_path();

/** Writes every successful record of the store as JSON lines (TrainingData.h format) with
 * pipeline = workload identity and runtime_seconds = runtime_min_s, plus timed-out records
 * with a censored runtime (see censored_records). Each workload is re-featurized in its own
 * process (Halide names Funcs uniquely per process): a random one in a child that rebuilds
 * it, a user one (an autotuning run's) in its generator (user_workload_reply).
 * `prefixes` > 0: each random workload's records also give that many partial states each
 * (replay_measured; sextant-sample --export-prefixes). A user workload's are not made (its
 * generator replays whole schedules only): a warning says how many workloads that left out. */
TrainingExportStats export_training(SampleStore &store, const std::string &path,
                                    const std::string &generators_dir = "", int prefixes = 0);

} // namespace sextant
