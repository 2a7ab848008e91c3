// Measure: the two things the sampler runs in isolated child processes (ChildProcess.h) for a
// random pipeline — making its candidate schedules, and JIT-compiling and timing one schedule.
// The parent only sees plain results; whatever goes wrong in a child (a Halide error, a crash,
// a hang past the time limit) comes back as an error string.
#pragma once

#include "sampler/Candidates.h"
#include "sampler/RandomWorkload.h"

#include <optional>
#include <string>
#include <vector>

namespace sextant {

/** What one benchmark child does. */
struct MeasureSpec {
    RandomWorkload workload;
    std::string target;        ///< Halide target string (default_run_target() when sampling)
    MachineInfo machine;       ///< for the PipelineDag the ScheduleText is parsed against
    std::string schedule_text;
    int repeats = 5;           ///< timed runs after one untimed warm-up run
    int threads = 2;           ///< HL_NUM_THREADS of the child (Halide's thread pool size)
    double timeout_s = 60;     ///< wall limit for compile + runs
    /** Test hook: "crash" (SIGSEGV), "hang" (sleeps past the timeout) or "error" (a real Halide
     * scheduling error) in the child after the schedule is applied; "" = none. */
    std::string inject;
    bool keep_stderr = false;  ///< let the child's stderr through (debugging)
};

struct Measurement {
    std::optional<double> min_s, median_s; ///< seconds per run; empty iff error
    int repeats = 0;
    double compile_s = 0;
    std::optional<std::string> error;
    double wall_s = 0;         ///< the child's whole life, as the parent saw it
};

/** Applies spec.schedule_text to a freshly built pipeline in a child, JIT-compiles it, runs
 * it once untimed and `repeats` times timed. */
Measurement measure_schedule(const MeasureSpec &spec);

struct CandidateResult {
    std::vector<Candidate> candidates;
    std::optional<std::string> error; ///< why the child gave none (pipeline/DAG/search failed)
    double wall_s = 0;
};

/** Builds the pipeline and its DAG in a child and returns make_candidates(dag, opt). */
CandidateResult candidates_for(const RandomWorkload &w, const std::string &target,
                               const MachineInfo &machine, const CandidateOptions &opt,
                               double timeout_s);

} // namespace sextant
