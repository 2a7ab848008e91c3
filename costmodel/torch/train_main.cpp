// sextant-train: trains the learned cost model on measured samples (JSON lines) and writes
// weights, a report and a scatter plot. A thin main over Trainer; see docs/COSTMODEL.md.
#include "costmodel/SyntheticData.h"
#include "costmodel/TrainableCostModel.h"
#include "costmodel/WeightsFile.h"
#include "costmodel/torch/Trainer.h"
#include "support/Args.h"
#include "support/Errors.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

using namespace sextant;

namespace {

const char *kUsage = R"(usage: sextant-train --data FILE.jsonl [--data ...] --out DIR [options]
       sextant-train --ensemble OUT.sxw --member A.sxw --member B.sxw ... [--caution X]

Trains the learned cost model. Writes DIR/weights.sxw (best epoch by validation pairwise
accuracy), DIR/report.json, DIR/scatter.csv, DIR/scatter.png and DIR/checkpoint/.

  --data FILE         samples, JSON lines (repeatable; docs/COSTMODEL.md)
  --synthetic N       add N synthetic pipelines (smoke test; no measurements needed)
  --out DIR           output directory (default train-out)
  --epochs N          total epochs (default 30)
  --lr X              Adam learning rate (default 2e-3)
  --abs-weight X      weight of the absolute log-runtime term (default 0.1)
  --pipelines-per-step N   (default 8)
  --max-per-pipeline N     samples of one pipeline per step (default 64)
  --val-percent P     pipelines held out for validation, by hash (default 15)
  --val-offset K      hold out hash buckets [K, K+P) mod 100 instead of [0, P): folds for
                      cross-validation (default 0)
  --val-pipelines TEXT  hold out the pipelines whose id contains TEXT instead (one real
                      pipeline left out, e.g. :camera_pipe; report, never tune, on it)
  --train-percent P   train on P% of the pipelines not held out (by a second hash; the
                      held-out set is the same at every P: scripts/learning_curve.sh)
  --repeat-pipelines TEXT:N  train on the pipelines whose id contains TEXT N times per epoch
                      (a few real pipelines among many random ones, e.g. user::4)
  --seed N            initialisation and shuffling seed (default 1)
  --resume            continue from DIR/checkpoint
  --init FILE         fine-tune from these weights instead of a fresh net (the file's sizes
                      and kind: --hidden, --global-prices etc. are then ignored)
  --parallelism N     cores of the target machine (default: this machine's)
  --llc-bytes N       last-level cache bytes of the target machine (default 32 MiB)
  --hidden N          hidden width (default 32); --embedding N: embedding widths (default 16)
  --global-prices     learn one multiplier per cost term for all stages (the output layer's
                      bias) and the allocator's fault prices, nothing per stage
  --schedule-only     the multipliers read the schedule features only (no algorithm
                      embedding): what carries over between pipelines
  --pair-temperature T   logistic pair loss temperature in log-seconds (default 0.1)
  --weight-pairs-by-gap  weight each pair by its measured log-ratio (capped at 3)
  --loss pairwise|throughput   ranking term: logistic loss on pairs (default), or squared
                      error of each schedule's throughput relative to its pipeline's fastest
  --weight-decay X       decoupled weight decay (default 0)
  --prior-weight X       soft prior toward the analytical prices: X times the mean squared log
                      multiplier plus the allocator's squared log fault prices (default 0)
  --tie-log-ratio X      pairs whose measured runtimes differ by at most this log-ratio are
                      ties: no pair loss, left out of pairwise accuracy (default 0.05: the
                      noise ceiling in docs/SAMPLING.md, what measurements can resolve)
  --multiplier-range R   bound on each cost term's learned multiplier, [1/R, R] (default 4;
                      0: unbounded)
  --threads N         Torch intra-op threads (default 1)
  --target TEXT       target machine description recorded in the manifest
  --python PATH       interpreter with matplotlib for the plot (default python3, then
                      /usr/bin/python3)
  --no-plot, --quiet

Ensembles (docs/COSTMODEL.md, "Ensembles"): --ensemble OUT.sxw writes a weights file that
names the --member files (each loaded first, to check it; "analytical" is the analytical
model; a path is stored relative to OUT's directory) and scores as their ensemble: per stage,
exp(mean + X * std) of the members' log predictions, --caution X (default 0: their geometric
mean). Nothing is trained.
)";

/** The command line: where the samples come from, the trainer's and the net's options. */
struct CommandLine {
    std::vector<std::string> data; ///< --data files (JSON lines)
    int synthetic = 0;             ///< --synthetic pipelines
    std::string init;              ///< --init weights to fine-tune
    std::string ensemble;          ///< --ensemble: write this ensemble file instead of training
    EnsembleSpec spec;             ///< its --member files and --caution
    TrainerOptions opt;
    TorchModelConfig cfg;
};

/** The command line; throws ArgError. */
CommandLine parse_args(int argc, char **argv) {
    CommandLine cl;
    TrainerOptions &opt = cl.opt;
    TorchModelConfig &cfg = cl.cfg;
    opt.plot_script = SEXTANT_PLOT_SCRIPT;
    cfg.parallelism = int(std::max(1u, std::thread::hardware_concurrency()));
    Args args(argc, argv);
    while (args.next()) {
        const std::string &a = args.flag();
        if (a == "--data")
            cl.data.push_back(args.value());
        else if (a == "--synthetic")
            cl.synthetic = args.integer();
        else if (a == "--out")
            opt.out_dir = args.value();
        else if (a == "--epochs")
            opt.epochs = args.integer();
        else if (a == "--lr")
            opt.loss.learning_rate = args.number();
        else if (a == "--abs-weight")
            opt.loss.absolute_weight = args.number();
        else if (a == "--pipelines-per-step")
            opt.pipelines_per_step = args.integer();
        else if (a == "--max-per-pipeline")
            opt.max_samples_per_pipeline = args.integer();
        else if (a == "--val-percent")
            opt.validation_percent = args.integer();
        else if (a == "--val-offset")
            opt.validation_offset = args.integer(0);
        else if (a == "--val-pipelines")
            opt.validation_pipelines = args.value();
        else if (a == "--train-percent")
            opt.train_percent = args.integer(1);
        else if (a == "--repeat-pipelines") {
            const std::string v = args.value();
            const size_t colon = v.rfind(':');
            int times = 0;
            if (colon != std::string::npos && colon > 0) times = std::atoi(v.c_str() + colon + 1);
            if (times < 1 || times > 1000)
                throw ArgError("--repeat-pipelines wants TEXT:N with N in [1, 1000], not '" + v +
                               "'");
            opt.repeat_text = v.substr(0, colon);
            opt.repeat_times = times;
        } else if (a == "--seed")
            opt.seed = cfg.seed = args.seed();
        else if (a == "--resume")
            opt.resume = true;
        else if (a == "--init")
            cl.init = args.value();
        else if (a == "--ensemble")
            cl.ensemble = args.value();
        else if (a == "--member")
            cl.spec.members.push_back(args.value());
        else if (a == "--caution")
            cl.spec.caution = args.number();
        else if (a == "--parallelism")
            cfg.parallelism = args.integer();
        else if (a == "--llc-bytes")
            cfg.llc_bytes = args.number();
        else if (a == "--pair-temperature")
            opt.loss.pair_temperature = args.number();
        else if (a == "--loss") {
            std::string kind = args.value();
            if (kind == "pairwise")
                opt.loss.ranking = RankingLoss::Pairwise;
            else if (kind == "throughput")
                opt.loss.ranking = RankingLoss::Throughput;
            else
                throw ArgError("--loss must be 'pairwise' or 'throughput', not '" + kind + "'");
        } else if (a == "--weight-pairs-by-gap")
            opt.loss.weight_pairs_by_gap = true;
        else if (a == "--weight-decay")
            opt.loss.weight_decay = args.number();
        else if (a == "--prior-weight")
            opt.loss.prior_weight = args.number();
        else if (a == "--tie-log-ratio")
            opt.loss.tie_log_ratio = args.number();
        else if (a == "--multiplier-range")
            cfg.multiplier_range = args.number();
        else if (a == "--hidden")
            cfg.hidden = args.integer();
        else if (a == "--global-prices")
            cfg.global_prices = true;
        else if (a == "--schedule-only")
            cfg.schedule_only = true;
        else if (a == "--embedding")
            cfg.algorithm_embedding = cfg.schedule_embedding = args.integer();
        else if (a == "--threads")
            cfg.num_threads = args.integer();
        else if (a == "--target")
            opt.target_machine = args.value();
        else if (a == "--no-plot")
            opt.plot_script.clear();
        else if (a == "--python")
            opt.python = args.value();
        else if (a == "--quiet")
            opt.progress = false;
        else if (a == "-h" || a == "--help") {
            std::printf("%s", kUsage);
            std::exit(0);
        } else
            args.unknown();
    }
    if (!cl.ensemble.empty() || !cl.spec.members.empty()) {
        if (cl.ensemble.empty() || cl.spec.members.empty())
            throw ArgError("--ensemble OUT.sxw needs at least one --member FILE, and --member "
                           "needs --ensemble");
        if (!std::isfinite(cl.spec.caution) || cl.spec.caution < 0)
            throw ArgError("--caution must be a finite number >= 0");
        return cl;
    }
    if (cl.data.empty() && cl.synthetic == 0) throw ArgError("give --data FILE or --synthetic N");
    if (cl.opt.validation_offset > 99) throw ArgError("--val-offset must be between 0 and 99");
    if (cl.opt.train_percent > 100) throw ArgError("--train-percent must be between 1 and 100");
    if (!TorchModelConfig::valid_multiplier_range(cfg.multiplier_range))
        throw ArgError("--multiplier-range must be 0 (unbounded) or between 1 and 1e6");
    return cl;
}

/** Checks that every member loads, then writes the ensemble file naming them. */
void write_ensemble(CommandLine cl) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::absolute(cl.ensemble).parent_path();
    for (std::string &m : cl.spec.members) {
        if (m == "analytical") continue;
        load_torch_cost_model(m, cl.cfg.parallelism, cl.cfg.llc_bytes);
        m = fs::absolute(m).lexically_relative(dir).string();
    }
    write_ensemble_file(cl.ensemble, cl.spec,
                        {{"training", {{"note", "an ensemble of separately trained weights"}}}});
    std::printf("ensemble of %zu members, caution %g: %s\n", cl.spec.members.size(),
                cl.spec.caution, cl.ensemble.c_str());
}

/** Reads (or makes) the samples, trains, and prints where the weights and report went. */
void train(CommandLine cl) {
    TrainerOptions &opt = cl.opt;
    const TorchModelConfig &cfg = cl.cfg;
    std::vector<TrainingSample> samples;
    for (const std::string &d : cl.data) {
        std::vector<TrainingSample> s = read_samples_jsonl(d);
        samples.insert(samples.end(), s.begin(), s.end());
    }
    if (cl.synthetic > 0) {
        SyntheticOptions so;
        so.pipelines = cl.synthetic;
        so.parallelism = cfg.parallelism;
        so.llc_bytes = cfg.llc_bytes;
        so.seed = opt.seed;
        std::vector<TrainingSample> s = synthetic_dataset(so);
        samples.insert(samples.end(), s.begin(), s.end());
    }
    std::unique_ptr<TrainableCostModel> model;
    if (!cl.init.empty()) {
        model = load_torch_cost_model(cl.init, cfg.parallelism, cfg.llc_bytes, cfg.num_threads);
        opt.fine_tune = true;
    } else {
        model = make_torch_cost_model(cfg);
    }
    AnalyticalModel analytical(cfg.parallelism, cfg.llc_bytes);
    opt.baseline = &analytical;
    TrainResult r = train_cost_model(*model, samples, opt);
    std::printf("weights: %s\nreport: %s\nvalidation: %s\nanalytical model on the same "
                "validation set: %s\n",
                r.weights_path.c_str(), r.report_path.c_str(), metrics_json(r.validation).c_str(),
                metrics_json(r.baseline_validation).c_str());
}

} // namespace

int main(int argc, char **argv) {
    const CommandLine cl = parse_command_line("sextant-train", kUsage, parse_args, argc, argv);
    return run_tool("sextant-train", [&] {
        if (cl.ensemble.empty())
            train(cl);
        else
            write_ensemble(cl);
        return 0;
    });
}
