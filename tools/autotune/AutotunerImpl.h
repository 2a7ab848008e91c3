// AutotunerImpl: the autotuner's state and steps, shared by Autotune.cpp (the batch loop:
// propose, select, build, benchmark, record, fine-tune) and AutotuneVerify.cpp (interleaved
// re-timing, the final verification, the report). Internal to tools/autotune.
#pragma once

#include "measure/Protocol.h"
#include "sampler/SampleStore.h"
#include "tools/autotune/Autotune.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sextant {
namespace autotune_detail {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Proposal {
    int index = 0; ///< 0 in batch 0: the plugin's untuned pick, the report's baseline
    std::string source;
    bool anchor = false; ///< always measured (batch 0: the analytical and the learned pick)
    double predicted_seconds = 0;
    std::string text; ///< ScheduleText; empty for another autoscheduler's schedule
    std::string hash;
    /** Another autoscheduler (--also) that makes this schedule itself: its plugin and the
     * name for -s. Empty: Sextant replays `text`. */
    std::string scheduler_plugin, scheduler_name;
    bool foreign() const { return !scheduler_name.empty(); }
};

/** The plugin and -s name of an --also entry ("adams2019", ..., or "PLUGIN.so:NAME"); throws
 * UserError for an unknown name or a missing plugin. */
std::pair<std::string, std::string> also_scheduler(const std::string &entry);
/** The proposal that rebuilds another autoscheduler's schedule logged in measurements.jsonl
 * line `m` (its hash, plugin and scheduler name). */
Proposal foreign_proposal(const json &m);
/** The batch-0 proposal that measures --also entry `entry` as it schedules. */
Proposal also_proposal(const std::string &entry);

struct Measured {
    bool ok = false;
    double min_s = 0, median_s = 0; ///< best over the timed processes, median of their bests
    double minflt_per_run = 0;      ///< minor page faults per pipeline run
    double build_s = 0;
    FailureKind kind = FailureKind::None;
    std::string error;
};

/** A challenger's re-timing against the best so far (AutotuneOptions::confirm_rounds). */
struct Duel {
    bool held = false; ///< false: no re-timing (off, or the best could not be rebuilt)
    bool won = false;
    double challenger_s = 0, champion_s = 0; ///< minima over the duel's rounds
};

class Autotuner {
public:
    explicit Autotuner(const AutotuneOptions &opt) : opt_(opt), dir_(opt.work_dir) {}

    AutotuneSummary run();
    std::vector<RemeasuredSchedule> remeasure(const std::vector<std::string> &files, int rounds);

private:
    /** Builds `props` and times them interleaved for `rounds` rounds; with `max_rounds` >
     * rounds, `rounds` more at a time (up to max_rounds) while the two fastest minima are
     * within kCloseCall of each other. */
    std::vector<RemeasuredSchedule> interleaved(const std::vector<Proposal> &props,
                                                const std::vector<std::string> &names, int rounds,
                                                const fs::path &where, int max_rounds = 0);
    void verify_best();
    void log(const std::string &msg) const {
        if (!opt_.quiet) std::fprintf(stderr, "%s\n", msg.c_str());
    }
    double elapsed() const {
        return elapsed_base_ +
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    bool over_budget() const { return opt_.time_budget_s > 0 && elapsed() > opt_.time_budget_s; }

    /** check_options, claim_work_dir, open_store, resume_from_logs, build_runtime. */
    void setup();
    /** The generator, plugin and driver exist; --select and the machine params parse. */
    void check_options();
    /** The work directory belongs to one pipeline: a resumed run must ask for the same one.
     * Returns the pipeline's identity (workload.json). */
    json claim_work_dir();
    /** The sample store of the work directory, with this pipeline's workload. */
    void open_store(const json &ident);
    /** Resume: counts, best and baseline from what the measurement log says so far. */
    void resume_from_logs();
    /** The Halide runtime, once per work directory: the schedules are built without it
     * (-no_runtime) and the pipeline driver loads it beside each one, as the bench does. */
    void build_runtime();
    /** The generator run that schedules with `scheduler_plugin` (-s `scheduler_name`);
     * Sextant's plugin when they are empty. */
    std::vector<std::string> generator_command(const fs::path &out_dir, const std::string &emit,
                                               const std::string &scheduler_plugin = "",
                                               const std::string &scheduler_name = "") const;
    std::map<std::string, std::string> model_env() const;
    std::vector<Proposal> propose(int batch);
    /** The successful measurements whose schedule is kept in schedules/: the best so far
     * (best_hash_, when it is one of them) first, then the others by their minimum. */
    std::vector<SampleRecord> fastest_measured() const;
    /** The ScheduleText files of the n fastest schedules measured so far, comma-separated. */
    std::string fastest_measured_files(int n) const;
    /** The candidates a generator run in candidate mode writes to dir, made with model env. */
    std::vector<Proposal> run_proposer(const fs::path &dir, std::map<std::string, std::string> env,
                                       int count, int seed, const std::string &log_name);
    std::vector<Proposal> select(int batch, const std::vector<Proposal> &all);
    Measured build(const Proposal &p, const fs::path &bdir);
    /** build() of every proposal into dirs[i], opt_.jobs at a time. */
    std::vector<Measured> build_all(const std::vector<Proposal> &props,
                                    const std::vector<fs::path> &dirs);
    /** The timed program for the shared object built in bdir (sextant-time --time-one). */
    Subject timing_subject(const fs::path &bdir) const;
    ProtocolOptions protocol(int rounds) const;
    /** opt_.repeats rounds of the timing protocol for the schedule built in bdir. */
    void benchmark(const fs::path &bdir, Measured &m);
    /** Whether measurement `m` is fast enough to challenge the best so far: within
     * kChallengeMargin of its figure, which is itself the minimum of a few rounds that won
     * (in session 37's first histogram_equalize run a duel set it at 14.9 ms, its median
     * 16.9, and nothing challenged it for 130 measurements; one at 15.3, median 15.4, did not
     * qualify). */
    bool challenges(const Measured &m) const {
        return m.ok && best_s_ > 0 && m.min_s < best_s_ * (1 + kChallengeMargin);
    }
    static constexpr double kChallengeMargin = 0.05;
    /** Times the schedule built in bdir against the best so far (kept built in champion/),
     * interleaved, opt_.confirm_rounds rounds. */
    Duel duel(const fs::path &bdir);
    /** The proposal that rebuilds the best so far (best_hash_); empty text and scheduler when
     * it cannot be found. */
    Proposal champion_proposal() const;
    fs::path champion_dir() const { return dir_ / "champion"; }
    /** After a new best: its shared object (built in bdir) moves to champion_dir(). */
    void keep_champion(const fs::path &bdir);
    void record(int batch, const Proposal &p, const Measured &m, const fs::path &bdir,
                const Duel &d = {});
    /** The measurement as a sample of the store (Sextant's schedules only). */
    void add_sample(int batch, const Proposal &p, const Measured &m);
    /** Counts, best, baseline, measurements.jsonl and the log line. */
    void after_measurement(int batch, const Proposal &p, const Measured &m, const Duel &d);
    /** best.schedule.h (and best.txt, for a Sextant schedule) from the schedule `hash`. */
    void write_best(const std::string &hash);
    void fine_tune(int batch);
    void write_report();

    AutotuneOptions opt_;
    fs::path dir_;
    std::unique_ptr<SampleStore> store_;
    int64_t workload_id_ = 0;
    std::string identity_;
    int parallelism_ = 1;
    double llc_bytes_ = 32 << 20;
    fs::path runtime_so_; ///< the Halide runtime the driver loads beside each schedule
    double elapsed_base_ = 0;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    int measurements_ = 0;
    int failures_ = 0;
    /** The best so far: its hash and figure (the minimum of its last fresh rounds: the duel
     * that made or kept it the best, else its measurement). */
    double best_s_ = 0;
    std::string best_hash_;
    double baseline_s_ = 0;
    double verified_best_s_ = 0, verified_base_s_ = 0; ///< from verify_best(), 0 if not run
};

} // namespace autotune_detail
} // namespace sextant
