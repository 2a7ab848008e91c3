// Sampler: the sampling loop of sextant-sample — for each random pipeline seed, search its
// candidate schedules, skip those already stored, benchmark the rest in a MeasurePool and add
// each result to the SampleStore as it arrives. Progress goes to stderr. See docs/SAMPLING.md.
#pragma once

#include "random_pipelines/Options.h"
#include "sampler/ChildJobs.h"
#include "sampler/SampleStore.h"
#include "sampler/SampledSchedules.h"

#include <cstdint>
#include <map>
#include <string>

namespace sextant {

struct SamplerOptions {
    uint64_t from = 0, to = 0; ///< seeds [from, to)
    int per_pipeline = 10;     ///< K: distinct schedules wanted per pipeline
    /** How each schedule is timed; a timed process stops once its best and third-best runs
     * agree within 3% (measure/TimingLoop.h), after `repeats` runs or after run_budget_s. */
    TimingOptions timing;
    /** Fresh timed processes per schedule, one after another; the label is the fastest's best
     * run (as the bench takes the best over its rounds). One process leaves the whole-process
     * modes in the labels: a schedule that runs 1.6x slower in some processes than in others
     * (docs/SAMPLING.md, "Noise ceiling"). */
    int processes = 1;
    double search_timeout_s = 300;     ///< per candidate-search child
    int jobs = 1;                      ///< benchmark children at once (compiles overlap)
    int parallelism = 0;               ///< MachineInfo cores; <= 0: all online CPUs
    int64_t llc_bytes = 0;             ///< MachineInfo cache; <= 0: the largest sysfs reports
    CandidateSearchOptions candidates; ///< count is set from per_pipeline
    /** If set, the candidate searches use the learned model with these weights (sources
     * "learned:..."); at most per_pipeline - (records already stored) are measured, so a
     * second pass over the same seeds with a larger per_pipeline adds on-policy schedules. */
    std::string weights;
    random_pipelines::RandomPipelineOptions generator;
    /** Test hook: measurement number (in start order, from 0) -> "crash" | "hang" | "error". */
    std::map<int64_t, std::string> inject;
    /** Where compiled schedules go while they are measured ("" = a new directory under
     * $TMPDIR or /tmp, removed at the end). */
    std::string work_dir;
    /** The pipeline driver ("" = this build's sextant-time). */
    std::string time_exe;
    bool quiet = false;   ///< no per-sample progress lines
    bool verbose = false; ///< benchmark children keep their stderr
};

struct SamplerSummary {
    int64_t measured = 0;         ///< records added by this run (failed ones included)
    int64_t failed = 0;           ///< of which with an error
    int64_t skipped = 0;          ///< schedules already stored
    int64_t pipelines_failed = 0; ///< seeds whose pipeline or candidate search failed
    double seconds = 0;           ///< wall time of the run
    double search_s = 0;          ///< candidate-search children, wall
    double measure_s = 0;         ///< benchmark children, wall, summed
    double compile_s = 0;         ///< of which compiling and linking the schedules
    double time_s = 0;            ///< of which timed processes
    int64_t busy_retries = 0;     ///< timed processes run again because the machine was busy
    double per_hour() const { return seconds > 0 ? measured / seconds * 3600 : 0; }
};

/** Samples seeds [from, to) into `store`; resumes (stored schedules are not measured again). */
SamplerSummary run_sampler(SampleStore &store, const SamplerOptions &opt);

} // namespace sextant
