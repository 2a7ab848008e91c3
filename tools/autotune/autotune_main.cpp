// sextant-autotune: autotunes one pipeline of a user's generator binary. A thin main over
// Autotune; see docs/AUTOTUNING.md.
#include "support/Args.h"
#include "support/Errors.h"
#include "tools/autotune/Autotune.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

using namespace sextant;

namespace {

const char *kUsage =
    R"(usage: sextant-autotune --generator BIN -g NAME --dir DIR [options] [PARAM=VALUE ...]

Measures candidate schedules of generator NAME in BIN (a Halide 14 generator binary) in batches,
fine-tunes the cost model on them, and keeps the fastest. PARAM=VALUE arguments are the
generator's own params. Resumable: run the same command again to go on. Writes to DIR:
best.schedule.h, best.txt (ScheduleText), tuned.sxw, report.md, report.json, curve.png,
measurements.jsonl, samples.db.

  --generator BIN        the generator binary (built with Halide 14's GenGen)
  -g NAME                the generator's name
  --dir DIR              work directory (created; one pipeline per directory)
  --target T             Halide target (default: this machine, )" SEXTANT_HOST_TARGET_TEXT R"()
  --machine-params P     cores,llc_bytes,balance (default: this host's cores and last-level cache, balance 40)
  --batches N            stop after N batches (default 5; no limit when --minutes is given)
  --minutes M            stop after M minutes of wall time (default: no limit)
  --candidates N         schedules proposed per batch (default 16)
  --select model|all     measure the model's best few (default) or every candidate
  --measure K            schedules measured per batch with --select model (default 4)
  --explore E            of which picked at random from the rest (default 1)
  --jobs J               parallel builds (default 2)
  --slurm PARTITION      build each candidate as a Slurm step on any node of PARTITION
                         (--jobs at a time) and time each on a node of its own (srun
                         --exclusive); --dir must be on storage every node mounts
                         (docs/CLUSTER.md)
  --repeats R            fresh timed processes per schedule (default 3); each runs the
                         schedule until best and 3rd-best agree within 3% (docs/MEASURING.md)
  --max-runs N           at most N timed runs per process (default 20)
  --run-budget S         at most S seconds of timed runs per process (default 1; --min-time
                         is the older name)
  --beam B --passes P    the main search (default 32, 3)
  --candidate-beam B     beam of the dropout searches (default 4)
  --mutations M          from batch 1 on, M proposals are mutations of the two fastest
                         measured schedules: one Func re-placed or re-tiled, the rest
                         completed by the model (default 6; 0 = none)
  --tweaks T             from batch 1 on, T proposals are tweaks of the fastest measured
                         schedule: one Func's tiling nudged (a split, the vector width, the
                         unrolling or parallel loops), the rest kept; one measurement per
                         batch is a tweak, the best-ranked or (odd batches) a random one
                         (default 6; 0 = none)
  --also S1,S2,...       batch 0 also measures these autoschedulers' schedules as they make
                         them: adams2019, li2018, mullapudi2016 (Halide 14's, from Debian's
                         libhalide14-0-dev) or PLUGIN.so:NAME; the fastest schedule can be
                         theirs (best.schedule.h; then no best.txt). Not fine-tuned on.
                         With --minutes, each gets a quarter of the budget (at least 30 s)
                         to schedule and build
  --confirm-rounds R     a schedule measured faster than the best so far, or within 5% of
                         it, is re-timed against it, interleaved, R rounds each, and becomes
                         the best (the base of the tweaks) only if it wins (default 3; 0 = off)
  --weights FILE         weights to start from (default: the shipped ones, if any)
  --epochs N             fine-tuning epochs per batch (default 20; 0 = no fine-tuning)
  --plugin FILE          libautoschedule_sextant.so (default: this build's)
  --trainer FILE         sextant-train (default: this build's)
  --time-exe FILE        the pipeline driver (default )" SEXTANT_TIME_EXE R"()
  --final-top K          at the end, re-time the K fastest measured schedules and the untuned
                         one interleaved; the winner is best.schedule.h (default 3; 0 = off)
  --final-rounds R       rounds of that re-timing (default 5)
  --final-max-rounds M   while its two fastest are within 5% of each other, R more rounds
                         at a time, up to M in all (default 15)
  --quiet

  --remeasure A.txt,B.txt,...  instead of autotuning: build these ScheduleText files (e.g.
                         best.txt of several runs) and benchmark them interleaved for
                         --rounds rounds (default 7); prints min and median of each and
                         writes DIR/remeasure.json. An entry also:NAME (NAME as for --also)
                         is the schedule that autoscheduler makes, built and timed beside them
)";

/** The command line: the autotuner's options plus the flags of the --remeasure mode. */
struct CommandLine {
    AutotuneOptions opt;
    std::vector<std::string> remeasure; ///< schedule files to re-time instead of autotuning
    int rounds = 7;                     ///< --remeasure's interleaved rounds
};

/** A comma-separated list, empty items dropped. */
std::vector<std::string> comma_list(const std::string &list) {
    std::vector<std::string> items;
    for (std::string &item : split_list(list))
        if (!item.empty()) items.push_back(std::move(item));
    return items;
}

CommandLine parse_args(int argc, char **argv) {
    CommandLine cl;
    AutotuneOptions &opt = cl.opt;
    opt.target = SEXTANT_HOST_TARGET_TEXT;
    opt.plugin = SEXTANT_PLUGIN_PATH;
    opt.trainer = SEXTANT_TRAINER_PATH;
    opt.time_exe = SEXTANT_TIME_EXE;
    opt.plot_script = SEXTANT_AUTOTUNE_PLOT;
    std::error_code ec; // a path that cannot be inspected counts as absent
    if (std::filesystem::exists(SEXTANT_SHIPPED_WEIGHTS, ec)) opt.weights = SEXTANT_SHIPPED_WEIGHTS;
    int epochs = 20;
    bool batches_given = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string &a = args.flag();
        if (a == "-h" || a == "--help") {
            std::printf("%s", kUsage);
            std::exit(0);
        } else if (a == "--generator")
            opt.generator = args.value();
        else if (a == "-g")
            opt.generator_name = args.value();
        else if (a == "--dir")
            opt.work_dir = args.value();
        else if (a == "--target")
            opt.target = args.value();
        else if (a == "--machine-params")
            opt.machine_params = args.value();
        else if (a == "--batches")
            opt.batches = args.integer(1), batches_given = true;
        else if (a == "--minutes")
            opt.time_budget_s = args.positive() * 60;
        else if (a == "--candidates")
            opt.candidates_per_batch = args.integer(1);
        else if (a == "--select")
            opt.select = args.value();
        else if (a == "--measure")
            opt.measure_per_batch = args.integer(1);
        else if (a == "--explore")
            opt.explore_per_batch = args.integer(0);
        else if (a == "--jobs")
            opt.jobs = args.integer(1);
        else if (a == "--slurm") {
            const std::string partition = args.value();
            opt.build_launcher = {"srun", "--quiet", "-N1", "-n1", "-p", partition};
            opt.time_launcher = {"srun", "--quiet", "-N1", "-n1", "--exclusive", "-p", partition};
        } else if (a == "--repeats")
            opt.repeats = args.integer(1);
        else if (a == "--run-budget" || a == "--min-time")
            opt.run_budget_s = args.positive();
        else if (a == "--max-runs")
            opt.max_runs = args.integer(1);
        else if (a == "--beam")
            opt.beam_size = args.integer(1);
        else if (a == "--passes")
            opt.num_passes = args.integer(1);
        else if (a == "--candidate-beam")
            opt.candidate_beam_size = args.integer(1);
        else if (a == "--mutations")
            opt.mutations = args.integer(0);
        else if (a == "--tweaks")
            opt.tweaks = args.integer(0);
        else if (a == "--also")
            opt.also = comma_list(args.value());
        else if (a == "--weights")
            opt.weights = args.value();
        else if (a == "--epochs")
            epochs = args.integer(0);
        else if (a == "--plugin")
            opt.plugin = args.value();
        else if (a == "--trainer")
            opt.trainer = args.value();
        else if (a == "--time-exe")
            opt.time_exe = args.value();
        else if (a == "--quiet")
            opt.quiet = true;
        else if (a == "--remeasure")
            cl.remeasure = comma_list(args.value());
        else if (a == "--rounds")
            cl.rounds = args.integer(1);
        else if (a == "--confirm-rounds")
            opt.confirm_rounds = args.integer(0);
        else if (a == "--final-top")
            opt.final_top = args.integer(0);
        else if (a == "--final-rounds")
            opt.final_rounds = args.integer(1);
        else if (a == "--final-max-rounds")
            opt.final_max_rounds = args.integer(1);
        else if (a.rfind("-", 0) != 0 && a.find('=') != std::string::npos)
            opt.generator_args.push_back(a);
        else
            args.unknown();
    }
    if (opt.generator.empty()) throw ArgError("--generator is required");
    if (opt.generator_name.empty()) throw ArgError("-g is required");
    if (opt.work_dir.empty()) throw ArgError("--dir is required");
    // A time budget alone means "for that long": the batch count must not end it first.
    if (opt.time_budget_s > 0 && !batches_given) opt.batches = std::numeric_limits<int>::max();
    if (epochs == 0) opt.trainer.clear();
    opt.train_epochs = std::max(1, epochs);
    return cl;
}

int remeasure(const CommandLine &cl) {
    std::vector<RemeasuredSchedule> r = remeasure_schedules(cl.opt, cl.remeasure, cl.rounds);
    for (const RemeasuredSchedule &x : r) {
        if (!x.error.empty())
            std::printf("%s: FAILED %s\n", x.file.c_str(), x.error.c_str());
        else
            std::printf("%s: min %.4f ms, median %.4f ms over %zu rounds\n", x.file.c_str(),
                        x.min_s * 1e3, x.median_s * 1e3, x.runs_s.size());
    }
    return 0;
}

int autotune(const AutotuneOptions &opt) {
    AutotuneSummary s = run_autotune(opt);
    std::printf("autotuned %d batches, %d measurements (%d failed): best %.4f ms%s", s.batches_done,
                s.measurements, s.failures, s.best_seconds * 1e3,
                s.verified ? " (re-timed interleaved)" : "");
    if (s.baseline_seconds > 0)
        std::printf(", untuned %.4f ms (%.2fx)", s.baseline_seconds * 1e3,
                    s.baseline_seconds / s.best_seconds);
    std::printf("\nbest schedule: %s\nreport: %s/report.md\n", s.best_schedule_header.c_str(),
                opt.work_dir.c_str());
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const CommandLine cl = parse_command_line("sextant-autotune", kUsage, parse_args, argc, argv);
    return run_tool("sextant-autotune",
                    [&] { return cl.remeasure.empty() ? autotune(cl.opt) : remeasure(cl); });
}
