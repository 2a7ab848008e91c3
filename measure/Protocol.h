// Protocol: the parent's half of the timing protocol. A "subject" is a program that, started
// fresh, times one schedule with TimingLoop (warm-up, repetitions until best and third-best
// agree) and prints one JSON line. The protocol runs subjects in rounds — round r starts each
// subject once, in a new process, in an order rotated by r, so that compared schedules share
// the machine's slow drifts — retries a process whose threads spent too much of the timed span
// waiting for a CPU (the machine was busy) or that ran while the whole machine was slower than
// it has been (a VM whose host is loaded: the process's own run-queue delay does not show it;
// a fixed workload timed in the parent around each process does), and summarizes each
// subject over its rounds.
// Timed processes get the default allocator: MALLOC_* and GLIBC_TUNABLES are removed from
// their environment unless the subject sets them. No Halide (Runner.h, TimingLoop.h).
#pragma once

#include "measure/Runner.h"
#include "measure/TimingLoop.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sextant {

/** A fixed single-threaded workload — integer mixing in registers and a read-modify-write
 * pass over 8 MiB — best of six; about 15 ms here. Slower than usual means this
 * machine is slower than usual now, whatever the cause (another tenant, the host). */
double probe_machine_speed();

/** How much slower the machine is now than usual, by a probe. Thread-safe.
 *
 * "Usual" is the lower quartile of the last `window` probes, the current one included — not
 * the fastest probe ever: on this VM an idle machine's probes spread 1.95-2.63 ms, so one lucky
 * probe made every later one read 8-15% "slow" and the sampler waited on an idle machine
 * (131 of 200 probes over 1.08 against the fastest, 8 of 200 against the quartile). A
 * slowdown that lasts for more than three quarters of the window becomes the usual. */
class MachineSpeed {
public:
    explicit MachineSpeed(std::function<double()> probe, size_t window = 256)
        : probe_(std::move(probe)), window_(std::max<size_t>(window, 1)) {}
    /** Probes once: probe time / lower quartile of the recent probes (1 for the first). */
    double slowdown();

private:
    std::function<double()> probe_;
    size_t window_;
    std::vector<double> recent_; ///< the last window_ probes, oldest first
    std::mutex mu_;
};

/** The process-wide MachineSpeed with probe_machine_speed; null (no check) when the environment
 * has SX_SPEED_CHECK=0. */
std::shared_ptr<MachineSpeed> default_machine_speed();

struct ProtocolOptions {
    int rounds = 1; ///< fresh timed processes per subject (interleaved across subjects)
    /** Extra attempts for a timed process whose busy_fraction exceeds busy_threshold. The
     * least busy attempt is kept; a round still busy after them is counted (busy_rounds). */
    int busy_retries = 2;
    double busy_threshold = 0.10;
    /** Machine-speed check: `speed` is probed before and after each timed process; a process
     * is "slow" (retried like a busy one, within busy_retries) when the larger slowdown of the
     * two exceeds 1 + slow_threshold. Null or slow_threshold <= 0: off. */
    std::shared_ptr<MachineSpeed> speed = default_machine_speed();
    double slow_threshold = 0.08;
    /** Before a timed process starts, while the probe says slow, wait this long and probe
     * again, for at most slow_max_wait_s in all (then time it anyway). */
    double slow_wait_s = 2;
    double slow_max_wait_s = 30;
    double timeout_s = 300; ///< per timed process
};

/** A timed program: argv prints a TimingLoop JSON line (timed_runs_to_json) on stdout, or a
 * timing_error_json line and a non-zero exit. */
struct Subject {
    std::string label;
    std::vector<std::string> argv;
    std::map<std::string, std::string> env; ///< set in its environment (MALLOC_* too, if asked)
    /** Variables it does not inherit, besides the allocator's (see allocator_env). */
    std::function<bool(const std::string &name)> drop_env;
    std::string log_path; ///< its stderr, appended ("" = /dev/null)
};

/** One subject over the rounds. */
struct SubjectResult {
    std::string label;
    std::vector<TimedRuns> rounds; ///< one accepted measurement per finished round
    int processes = 0;             ///< timed processes started, retries included
    int busy_retries = 0;          ///< of which retries because the machine was busy
    int busy_rounds = 0;           ///< accepted rounds still busy or slow
    int slow_retries = 0;          ///< of busy_retries, those for a slow machine
    /** Per accepted round, the machine's slowdown around it (probe / fastest probe; 1 when the
     * check is off), in round order. */
    std::vector<double> slowdowns;
    FailureKind kind = FailureKind::None; ///< the first failure; later rounds are skipped
    std::string error;

    bool ok() const { return kind == FailureKind::None && !rounds.empty(); }
    double best_s() const;              ///< min over rounds of each round's best
    double median_s() const;            ///< median of every timed run of every round
    double round_best_median_s() const; ///< median over rounds of each round's best
    /** Max / min of the rounds' bests: the process-to-process spread (1 with one round). */
    double round_spread() const;
    int runs() const; ///< timed runs over all rounds
    int converged_rounds() const;
    /** Medians over rounds of the per-run counters. */
    double minflt_per_run() const;
    double nvcsw_per_run() const;
    double nivcsw_per_run() const;
    double busy_fraction() const;
};

/** True for the variables that change glibc malloc's behaviour (MALLOC_*, GLIBC_TUNABLES). */
bool allocator_env(const std::string &name);

/** Runs `rounds` rounds over the subjects as described above. A subject that fails (timeout,
 * crash, error line) keeps its failure and is left out of later rounds; the others go on. */
std::vector<SubjectResult> measure_interleaved(const std::vector<Subject> &subjects,
                                               const ProtocolOptions &opt);

/** One round of one subject (a fresh process, with busy retries), appended to `into`;
 * false if it failed (into.kind and into.error say why). */
bool measure_round(const Subject &s, const ProtocolOptions &opt, SubjectResult &into);

} // namespace sextant
