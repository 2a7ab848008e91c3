// ChildJobs: what the sampler runs in child processes (measure/Runner.h) for a random pipeline —
// making its candidate schedules, and measuring one schedule. A schedule is compiled ahead of
// time in a forked child (build the pipeline, apply the ScheduleText, compile to an object
// without the Halide runtime, link a shared object) and then timed with the timing protocol
// (measure/Protocol.h): a fresh sextant-time process loads it beside the runtime built once per
// run, warms up, repeats until best and third-best agree, and is retried if the machine was
// busy. The parent only sees plain results; whatever goes wrong in a child (a Halide error, a
// crash, a hang past the time limit) comes back as an error string and a failure kind.
#pragma once

#include "measure/Protocol.h"
#include "measure/Runner.h"
#include "sampler/RandomWorkload.h"
#include "sampler/SampledSchedules.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sextant {

/** Where the schedules' code goes and what times it; made once per sampler run. */
struct TimingSetup {
    std::string work_dir;   ///< per-measurement subdirectories are made and removed here
    std::string runtime_so; ///< the Halide runtime for the target (build_runtime)
    std::string time_exe;   ///< sextant-time
    std::string linker = "cc";
};

/** A new directory PREFIX-XXXXXX under std::filesystem::temp_directory_path() ($TMPDIR or
 * /tmp) for the caller to remove. */
std::string make_work_dir(const std::string &prefix);

/** Compiles Halide's runtime for `target` to dir/libsextant_runtime.so (in a child process);
 * returns its path. Throws std::runtime_error if that fails. */
std::string build_runtime(const std::string &target, const std::string &dir,
                          const std::string &linker = "cc");

/** How each schedule is timed: the same for sampling, remeasuring and judging picks. */
struct TimingOptions {
    int repeats = 10;        ///< timed runs per process at most (stopping rule: TimingLoop.h)
    double run_budget_s = 1; ///< and at most this many seconds of them
    double timeout_s = 60;   ///< per schedule: compile and timing together
    int threads = 0;         ///< HL_NUM_THREADS of the timed process; <= 0: the machine's cores
    /** A timed process whose threads waited for a CPU more than this fraction of its timed
     * span is run again, up to busy_retries times (measure/Protocol.h). */
    double busy_threshold = 0.10;
    int busy_retries = 2;
    /** Other work that shares the machine with the sampler: a file listing process groups, one
     * id a line, that are stopped (SIGSTOP) while a schedule is timed and resumed (SIGCONT)
     * afterwards, as the sampler's own compiles are ("" = none; scripts/beside_sampler.sh). */
    std::string pause_file;

    /** The protocol's options for `rounds` interleaved rounds within `timeout_s` each. */
    ProtocolOptions protocol(int rounds, double timeout_s) const {
        ProtocolOptions p;
        p.rounds = rounds;
        p.timeout_s = timeout_s;
        p.busy_threshold = busy_threshold;
        p.busy_retries = busy_retries;
        return p;
    }
};

/** What one measurement does. */
struct MeasureSpec {
    RandomWorkload workload;
    std::string target;  ///< Halide target string (default_run_target() when sampling)
    MachineInfo machine; ///< for the PipelineDag the ScheduleText is parsed against
    std::string schedule_text;
    TimingSetup setup;
    TimingOptions timing; ///< threads <= 0: machine.parallelism
    /** Fresh timed processes of the compiled schedule, one after the other (the sampler: 1;
     * remeasuring: more). */
    int rounds = 1;
    /** Test hook: "crash" (SIGSEGV), "hang" (sleeps past the timeout) or "error" (a real Halide
     * scheduling error) in the compile child after the schedule is applied; "" = none. */
    std::string inject;
    bool keep_stderr = false; ///< let the children's stderr through (debugging)
};

struct Measurement {
    std::optional<double> min_s, median_s; ///< seconds per run; empty iff error
    int repeats = 0;                       ///< timed runs
    double compile_s = 0;                  ///< compile to object + link
    double time_s = 0;                     ///< the timed processes (retries included), wall
    std::optional<std::string> error;
    FailureKind kind = FailureKind::None;
    double minflt_per_run = 0; ///< minor page faults per run
    double busy_fraction = 0;  ///< of the kept timed process
    int busy_retries = 0;
    /** Per round: the best run, minor faults per run, busy fraction (the above are round 0's,
     * min_s the best over rounds). */
    std::vector<double> round_best_s, round_minflt, round_busy;
    double wall_s = 0; ///< compile child start to the end of the timing, as the parent saw it
};

/** A schedule compiled to a shared object, ready to time (or why it is not). */
struct CompiledSchedule {
    std::string lib;                ///< SO:FUNC, for sextant-time
    std::vector<std::string> fills; ///< NAME=LO:HI: the value ranges of the inputs
    double compile_s = 0;           ///< compile to object + link
    std::optional<std::string> error;
    FailureKind kind = FailureKind::None;
    bool ok() const { return !error.has_value(); }
};

/** While alive, the process groups listed in a pause file (TimingOptions::pause_file) are
 * stopped; ids that name no process group (gone, or not ours) are skipped. Read once, at
 * construction. */
class PauseListed {
public:
    explicit PauseListed(const std::string &pause_file);
    ~PauseListed(); ///< SIGCONT to every group it stopped
    PauseListed(const PauseListed &) = delete;
    PauseListed &operator=(const PauseListed &) = delete;
    const std::vector<int> &stopped() const { return stopped_; }

private:
    std::vector<int> stopped_;
};

/** Compiles spec.schedule_text into `dir` in a child process (spec.timing.timeout_s), as a
 * MeasurePool does before timing. */
CompiledSchedule compile_schedule(const MeasureSpec &spec, const std::string &dir);

/** The timed program for a compiled schedule: sextant-time --time-one with spec's stopping
 * rule, threads and stderr (measure/Protocol.h). */
Subject timed_subject(const MeasureSpec &spec, const CompiledSchedule &c);

/** Measures one schedule (a MeasurePool of one). */
Measurement measure_schedule(const MeasureSpec &spec);

/** Runs up to `jobs` measurements at once such that compiles overlap but timings never do: a
 * compile child starts at once; when it has compiled, its schedule waits for its turn; a
 * schedule is timed only inside wait(), in the order the schedules compiled, and meanwhile every
 * compile child is stopped (SIGSTOP, its timeout clock paused) and resumed afterwards. So the
 * caller's own work between wait() calls (a candidate search) never overlaps a timing. */
class MeasurePool {
public:
    explicit MeasurePool(int jobs);
    ~MeasurePool(); ///< kills the children still running
    MeasurePool(const MeasurePool &) = delete;
    MeasurePool &operator=(const MeasurePool &) = delete;

    bool full() const { return int(slots_.size()) >= jobs_; }
    bool empty() const { return slots_.empty(); }

    /** Starts the compile child for spec (the pool must not be full); `tag` comes back with its
     * result. */
    void start(int64_t tag, const MeasureSpec &spec);
    /** Blocks until at least one measurement has finished; returns (tag, result) of each. */
    std::vector<std::pair<int64_t, Measurement>> wait();

private:
    struct Slot;
    /** Times the schedule of a compiled slot (every other child stopped meanwhile). */
    Measurement time_slot(Slot &s);
    int jobs_;
    int64_t ready_counter_ = 0;
    std::vector<std::unique_ptr<Slot>> slots_;
};

struct CandidateResult {
    std::vector<SearchCandidate> candidates;
    std::optional<std::string> error; ///< why the child gave none (pipeline/DAG/search failed)
    double wall_s = 0;
};

/** Builds the pipeline and its DAG in a child and returns make_candidates(dag, opt, weights). */
CandidateResult candidates_for(const RandomWorkload &w, const std::string &target,
                               const MachineInfo &machine, const CandidateSearchOptions &opt,
                               double timeout_s, const std::string &weights = "");

} // namespace sextant
