// TimingLoop: the in-process half of the timing protocol — what a fresh timed process does
// with the code it was given: one warm-up run, then repetitions until the best and the
// third-best run agree within a tolerance (or a run count or time budget is reached), with the
// process's page faults, context switches and run-queue delay counted over the timed runs.
// Also the one-line JSON form in which a timed process reports this to its parent.
// No Halide: the code to time is a callback. Protocol.h is the parent's half.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace sextant {

/** When a timed process stops repeating. */
struct StopRule {
    /** Runs before convergence is checked (at least 3: there must be a third-best). */
    int min_runs = 3;
    /** Stop after this many timed runs even if not converged (>= 1; below 3 no convergence
     * check is possible and exactly max_runs runs are made). */
    int max_runs = 20;
    /** Converged when third-best <= best * (1 + tolerance). */
    double tolerance = 0.03;
    /** Stop once the timed runs have taken this many seconds (and min(min_runs, max_runs)
     * runs are done), converged or not; <= 0: no budget. */
    double budget_s = 2.0;
    /** A "run" is enough back-to-back calls to last at least this long (chosen from the
     * warm-up); 0: one call per run. For code that takes microseconds. */
    double min_run_s = 0;
};

enum class StopReason { Continue, Converged, MaxRuns, Budget };
const char *stop_reason_name(StopReason r); ///< "continue", "converged", "max_runs", "budget"

/** The stopping rule: given the times of the runs so far (seconds, in run order) and the
 * seconds they took in total, whether to stop and why. */
StopReason stop_reason(const std::vector<double> &times_s, double spent_s, const StopRule &rule);

/** This process's counters: getrusage(RUSAGE_SELF) and the run-queue delay summed over its
 * threads (second field of /proc/self/task/TID/schedstat: nanoseconds spent runnable but
 * waiting for a CPU). */
struct ProcessCounters {
    long minflt = 0, majflt = 0, nvcsw = 0, nivcsw = 0;
    double run_delay_s = 0;
};
ProcessCounters read_process_counters();

/** What one timed process measured. */
struct TimedRuns {
    std::vector<double> times_s; ///< seconds per call, per run, in run order
    int calls_per_run = 1;
    std::string stop = "converged"; ///< stop_reason_name of why it stopped
    double warmup_s = 0;            ///< the untimed first call
    long warmup_minflt = 0;         ///< minor page faults during the warm-up call
    double timed_s = 0;             ///< wall time of the timed runs together
    /** Per call over the timed runs (deltas of ProcessCounters / calls). */
    double minflt_per_run = 0, majflt_per_run = 0, nvcsw_per_run = 0, nivcsw_per_run = 0;
    double run_delay_s = 0; ///< run-queue delay over the timed runs, all threads, total
    /** run_delay_s / timed_s: how much of the timed span the process's threads waited for a
     * CPU that something else held. The parent retries a process above its threshold. */
    double busy_fraction = 0;

    double best_s() const;
    double third_best_s() const; ///< the best when fewer than 3 runs
    double median_s() const;
    bool converged() const { return stop == "converged"; }
};

/** Runs call() once untimed, then runs until `rule` says stop, counting as described above.
 * call() returns false on failure; then timing stops and the failure propagates (false). */
bool time_runs(const std::function<bool()> &call, const StopRule &rule, TimedRuns &out);

/** One JSON object on one line (no newline), and back. parse returns false for a line that is
 * not a timed-runs object. */
std::string timed_runs_to_json(const TimedRuns &t);
bool timed_runs_from_json(const std::string &line, TimedRuns &out);

/** The line a timed process prints when it could not measure: {"error": ..., "failure_kind":
 * ...}. */
std::string timing_error_json(const std::string &kind, const std::string &message);

} // namespace sextant
