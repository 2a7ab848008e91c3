// Measure: the two things the sampler runs in isolated child processes (ChildProcess.h) for a
// random pipeline — making its candidate schedules, and JIT-compiling and timing one schedule.
// The parent only sees plain results; whatever goes wrong in a child (a Halide error, a crash,
// a hang past the time limit) comes back as an error string.
#pragma once

#include "sampler/Candidates.h"
#include "sampler/RandomWorkload.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sextant {

/** What one benchmark child does. */
struct MeasureSpec {
    RandomWorkload workload;
    std::string target;  ///< Halide target string (default_run_target() when sampling)
    MachineInfo machine; ///< for the PipelineDag the ScheduleText is parsed against
    std::string schedule_text;
    int repeats = 5;       ///< timed runs after one untimed warm-up run
    int threads = 2;       ///< HL_NUM_THREADS of the child (Halide's thread pool size)
    double timeout_s = 60; ///< wall limit for compile + runs
    /** Test hook: "crash" (SIGSEGV), "hang" (sleeps past the timeout) or "error" (a real Halide
     * scheduling error) in the child after the schedule is applied; "" = none. */
    std::string inject;
    bool keep_stderr = false; ///< let the child's stderr through (debugging)
};

struct Measurement {
    std::optional<double> min_s, median_s; ///< seconds per run; empty iff error
    int repeats = 0;
    double compile_s = 0;
    std::optional<std::string> error;
    double wall_s = 0; ///< the child's whole life, as the parent saw it
};

/** JIT-compiles (never runs) a trivial pipeline for `target` in this process, so that Halide's
 * shared JIT runtime for that target exists before benchmark children are forked: they inherit
 * it instead of each compiling it again. Running nothing keeps the thread pool unstarted, so
 * each child still starts its own with its HL_NUM_THREADS. */
void warm_jit_runtime(const std::string &target);

/** Applies spec.schedule_text to a freshly built pipeline in a child, JIT-compiles it, runs
 * it once untimed, then (when the pool gives it its turn) once more untimed and `repeats`
 * times timed. */
Measurement measure_schedule(const MeasureSpec &spec);

/** Runs up to `jobs` benchmark children at once such that compiles overlap but timings never
 * do: a child compiles as soon as it starts, then waits for its turn; while one child times
 * its runs, every other child is stopped (SIGSTOP) and resumed (SIGCONT) afterwards, and
 * `hold` keeps new turns from starting (the caller runs a candidate search then). A child's
 * timeout counts only the time it is neither stopped nor waiting for its turn. */
class MeasurePool {
public:
    explicit MeasurePool(int jobs);
    ~MeasurePool(); ///< kills the children still running
    MeasurePool(const MeasurePool &) = delete;
    MeasurePool &operator=(const MeasurePool &) = delete;

    bool full() const { return int(slots_.size()) >= jobs_; }
    bool empty() const { return slots_.empty(); }
    /** True while a child is in its timed phase. */
    bool timing() const;
    void set_hold(bool hold) { hold_ = hold; }

    /** Starts a child for spec (the pool must not be full); `tag` comes back with its result. */
    void start(int64_t tag, const MeasureSpec &spec);
    /** Blocks until at least one child has finished; returns (tag, result) of each. */
    std::vector<std::pair<int64_t, Measurement>> wait();

private:
    struct Slot;
    void grant_turn();
    void resume_all();
    int jobs_;
    bool hold_ = false;
    int64_t ready_counter_ = 0;
    std::vector<std::unique_ptr<Slot>> slots_;
};

struct CandidateResult {
    std::vector<Candidate> candidates;
    std::optional<std::string> error; ///< why the child gave none (pipeline/DAG/search failed)
    double wall_s = 0;
};

/** Builds the pipeline and its DAG in a child and returns make_candidates(dag, opt, weights). */
CandidateResult candidates_for(const RandomWorkload &w, const std::string &target,
                               const MachineInfo &machine, const CandidateOptions &opt,
                               double timeout_s, const std::string &weights = "");

} // namespace sextant
