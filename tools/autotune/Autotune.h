// Autotune: turns minutes of measurement into a faster schedule for one user pipeline.
//
// Each batch: the Sextant plugin, run inside the user's generator, proposes distinct candidate
// schedules with predicted runtimes (SEXTANT_CANDIDATES); the ones worth measuring are picked
// (the model's best few plus exploration, or all of them); each is built ahead of time by the
// same generator replaying its ScheduleText (SEXTANT_SCHEDULE_FILE) into a shared object,
// several builds in parallel; the benchmarks then run one at a time, each in fresh processes of
// the pipeline driver with the timing protocol (measure/Protocol.h); every result
// goes to the SampleStore under this workload; the cost model is fine-tuned on all measurements
// so far, and the next batch proposes with it. Everything lands in the work directory as it is
// made, so an interrupted run resumes where it stopped (see docs/AUTOTUNING.md).
#pragma once

#include <string>
#include <vector>

namespace sextant {

struct AutotuneOptions {
    /** The user's generator binary, the generator's name (-g) and its generator params. */
    std::string generator;
    std::string generator_name;
    std::vector<std::string> generator_args;
    std::string target;         ///< Halide target; empty = this build's host target
    std::string machine_params; ///< "cores,llc_bytes,balance"; empty = this machine
    std::string work_dir;

    int batches = 5;          ///< stop after this many batches (counting resumed ones)
    double time_budget_s = 0; ///< and/or after this much wall time (0 = none)
    int candidates_per_batch = 16;
    /** "model": measure the model's best `measure_per_batch` (of which `explore_per_batch` are
     * picked at random from the rest instead); "all": measure every candidate (the plain
     * loop, for comparison). */
    std::string select = "model";
    int measure_per_batch = 4;
    int explore_per_batch = 1;

    int jobs = 2; ///< parallel builds
    /** Fresh timed processes (rounds of the timing protocol, measure/Protocol.h) per schedule;
     * its runtime is the best over them. */
    int repeats = 3;
    /** A schedule measured faster than the best so far, or within 5% of it, is timed again
     * against it, interleaved (`confirm_rounds` fresh processes each), and becomes the best,
     * the base of the next tweaks and mutations, only if it is faster there (0 = any faster
     * measurement is the new best). A measurement's figure is the minimum of its rounds, and the
     * fastest of many such minima is mostly luck: bench histogram_equalize's fastest measured
     * schedules (15.0- 15.9 ms) re-timed at 17.0-18.0 against the expert's 14.7-15.1 (session 36).
     */
    int confirm_rounds = 3;
    /** Per timed process: repetitions stop when best and third-best agree within 3%, or after
     * `max_runs` runs or `run_budget_s` seconds of them. */
    int max_runs = 20;
    double run_budget_s = 1.0;
    double build_timeout_s = 600, bench_timeout_s = 120, propose_timeout_s = 900;

    int beam_size = 32, num_passes = 3, candidate_beam_size = 4;
    /** From the second batch on, this many of each batch's proposals are mutations of the two
     * fastest schedules measured so far (SEXTANT_MUTATE); 0 = none. */
    int mutations = 6;
    /** From the second batch on, this many are tweaks of the fastest one (SEXTANT_NUM_TWEAKS:
     * one Func's tiling nudged, the rest kept), and one of each batch's measurements is a
     * tweak (the model's best-ranked in even batches, a random one in odd); 0 = none. */
    int tweaks = 6;

    /** Other autoschedulers whose schedules batch 0 measures as they are (`--also`): each
     * "adams2019", "li2018", "mullapudi2016" (Halide 14's plugins as Debian installs them) or
     * "PLUGIN.so:NAME". Their .schedule.h can be the result; they are not fine-tuned on (the
     * model needs a ScheduleText). */
    std::vector<std::string> also;

    std::string plugin;  ///< libautoschedule_sextant.so
    std::string trainer; ///< sextant-train; empty = no fine-tuning
    /** Weights to start from; empty = the plugin's default model (shipped weights if any). */
    std::string weights;
    int train_epochs = 20;
    /** At the end, the `final_top` fastest measured schedules and the untuned one are rebuilt
     * and timed interleaved for `final_rounds` rounds; the winner becomes best.schedule.h
     * (0 = skip). */
    int final_top = 3;
    int final_rounds = 5;
    /** When the fastest two of that re-timing are within 5% of each other, `final_rounds`
     * more at a time, up to this many rounds in all: bench max_filter's runs are bimodal (the
     * allocator's cliff: one schedule's five rounds read 58-94 ms, its next ten 44-75), and
     * five rounds chose Mullapudi2016's schedule over one that re-timed 0.82x it. */
    int final_max_rounds = 15;

    std::string time_exe; ///< sextant-time, the pipeline driver every timing goes through
    std::string cxx = "c++";
    /** Commands put in front of each build (the generator and the link) and of each timed
     * process: empty to run them here; `--slurm PARTITION` makes them `srun` steps, builds on
     * any node of the partition (--jobs at a time), timings on a node of their own
     * (`--exclusive`). The work directory must then be on storage every node mounts. */
    std::vector<std::string> build_launcher, time_launcher;
    std::string python = "python3"; ///< for the PNG curve
    std::string plot_script;
    bool quiet = false;
};

/** How long another autoscheduler (`also`) may take to schedule and build the pipeline: with a
 * time budget, a quarter of it (at least 30 s, at most build_timeout_s), so one that cannot
 * finish does not spend the user's run (Adams2019 on bench local_laplacian used the whole
 * 600 s build timeout, half of a 20-minute run, and failed). */
double also_build_timeout_s(const AutotuneOptions &opt);

struct AutotuneSummary {
    int batches_done = 0;
    int measurements = 0;
    int failures = 0;
    double baseline_seconds = 0; ///< the untuned schedule (batch 0's search result)
    double best_seconds = 0;
    bool verified = false;            ///< both from the final interleaved re-timing
    std::string best_schedule_header; ///< path of best.schedule.h
};

/** Runs (or resumes) autotuning; throws UserError with a clear message for bad options or a
 * generator that cannot be run. */
AutotuneSummary run_autotune(const AutotuneOptions &opt);

struct RemeasuredSchedule {
    std::string file;
    double min_s = 0, median_s = 0; ///< over the rounds
    std::vector<double> runs_s;
    std::string error;
};

/** Builds each ScheduleText file for the pipeline of `opt`, then benchmarks them interleaved
 * (A B C A B C ...) for `rounds` rounds, so that slow drifts of a shared machine affect all
 * alike. Writes opt.work_dir/remeasure.json. */
std::vector<RemeasuredSchedule>
remeasure_schedules(const AutotuneOptions &opt, const std::vector<std::string> &files, int rounds);

} // namespace sextant
