#include "Trainer.h"

#include "support/Errors.h"
#include "support/Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace sextant {

namespace fs = std::filesystem;

// The metrics as JSON under their own names (report.json, the progress lines).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankingMetrics, pipelines, samples, pairs, pairwise_accuracy,
                                   kendall_tau, top1_regret_geomean, top1_regret_max,
                                   mean_abs_log_error)

namespace {

using Clock = std::chrono::steady_clock;

std::string format_seconds(double s) {
    char buf[32];
    int t = int(s + 0.5);
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%dh%02dm", t / 3600, t / 60 % 60);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", t / 60, t % 60);
    return buf;
}

RankingMetrics evaluate(CostModel &model, const std::vector<const TrainingSample *> &s, double tie,
                        std::vector<double> *predicted_out = nullptr) {
    std::vector<double> pred = predict_samples(model, s);
    std::vector<std::string> pipe;
    std::vector<double> meas;
    for (const TrainingSample *x : s) {
        pipe.push_back(x->pipeline);
        meas.push_back(x->runtime_seconds);
    }
    if (predicted_out) *predicted_out = pred;
    return ranking_metrics(pipe, pred, meas, tie);
}

/** Progress bar on one stderr line, redrawn at most ~10 times a second. */
class Progress {
public:
    explicit Progress(bool on) : on_(on) {}
    void draw(int epoch, int epochs, int step, int steps, double loss, double val_acc, double eta_s,
              bool force) {
        if (!on_) return;
        auto now = Clock::now();
        if (!force && now - last_ < std::chrono::milliseconds(100)) return;
        last_ = now;
        const int width = 24;
        int filled = steps ? int(double(step) / steps * width) : width;
        std::string bar(size_t(filled), '#');
        bar.resize(size_t(width), '-');
        std::fprintf(stderr, "\repoch %d/%d [%s] loss %.4f  val pair acc %s  ETA %s   ", epoch,
                     epochs, bar.c_str(), loss,
                     val_acc >= 0 ? std::to_string(val_acc).substr(0, 5).c_str() : "  -  ",
                     eta_s >= 0 ? format_seconds(eta_s).c_str() : "?");
        std::fflush(stderr);
    }
    void end_line() {
        if (on_) std::fprintf(stderr, "\n");
    }

private:
    bool on_;
    Clock::time_point last_{};
};

} // namespace

std::string metrics_json(const RankingMetrics &m) {
    return nlohmann::json(m).dump();
}

namespace {

/** The samples by role: validation pipelines (is_validation_pipeline) and training ones;
 * pipelines with one sample are left out (nothing to rank). */
struct Split {
    std::vector<const TrainingSample *> validation;
    std::map<std::string, std::vector<const TrainingSample *>> train; // by pipeline
    std::vector<const TrainingSample *> train_all;                    // train, flattened
    std::vector<std::string> train_names;                             // train's keys
    int train_samples = 0;
    size_t pipelines = 0; ///< distinct pipelines among all samples
};

Split split_samples(const std::vector<TrainingSample> &samples, const TrainerOptions &opt) {
    Split split;
    std::map<std::string, int> per_pipeline;
    for (const TrainingSample &s : samples)
        per_pipeline[s.pipeline] += s.prefix_funcs == 0;
    split.pipelines = per_pipeline.size();
    for (const TrainingSample &s : samples) {
        if (per_pipeline[s.pipeline] < 2) continue; // cannot be ranked
        const bool held_out =
            opt.validation_pipelines.empty()
                ? is_validation_pipeline(s.pipeline, opt.validation_percent, opt.validation_offset)
                : s.pipeline.find(opt.validation_pipelines) != std::string::npos;
        if (held_out) {
            // A partial state trains the search's steps; validation judges whole schedules.
            if (s.prefix_funcs == 0) split.validation.push_back(&s);
        } else if (in_training_fraction(s.pipeline, opt.train_percent)) {
            split.train[s.pipeline].push_back(&s);
            split.train_samples += s.prefix_funcs == 0;
        }
    }
    if (split.train.empty())
        throw UserError("no training pipeline has two or more samples (" +
                        std::to_string(samples.size()) + " samples, " +
                        std::to_string(per_pipeline.size()) +
                        " pipelines); measure more schedules per pipeline");
    for (auto &p : split.train) {
        const bool repeated =
            !opt.repeat_text.empty() && p.first.find(opt.repeat_text) != std::string::npos;
        for (int k = 1; repeated && k < opt.repeat_times; k++)
            split.train_names.push_back(p.first);
        split.train_names.push_back(p.first);
        for (const TrainingSample *t : p.second)
            if (t->prefix_funcs == 0) split.train_all.push_back(t);
    }
    return split;
}

/** Where training stands: what checkpoints save and --resume restores. */
struct Progression {
    nlohmann::json history = nlohmann::json::array();
    int start_epoch = 0, best_epoch = -1;
    double best_accuracy = -1;
};

Progression resume_from_checkpoint(TrainableCostModel &model, const fs::path &ckpt,
                                   const TrainerOptions &opt) {
    const fs::path state = ckpt / "trainer.json";
    if (!fs::exists(state))
        throw UserError("--resume: no checkpoint in '" + ckpt.string() +
                        "'; run without --resume to start afresh");
    Progression pr;
    try {
        nlohmann::json st = nlohmann::json::parse(std::ifstream(state));
        pr.start_epoch = st.at("epochs_done").get<int>();
        pr.best_epoch = st.at("best_epoch").get<int>();
        pr.best_accuracy = st.at("best_accuracy").get<double>();
        pr.history = st.at("history");
    } catch (const nlohmann::json::exception &e) {
        throw UserError("checkpoint '" + state.string() + "' is corrupt (" + e.what() +
                        "); run without --resume to start afresh");
    }
    model.load((ckpt / "model.sxw").string());
    model.load_optimizer_state((ckpt / "optimizer.pt").string());
    if (opt.progress)
        std::fprintf(stderr, "sextant-train: resuming after epoch %d of %d\n", pr.start_epoch,
                     opt.epochs);
    return pr;
}

/** Runs the epochs left: each trains on every training pipeline once (pipelines_per_step at
 * a time, in a seeded shuffled order), scores the validation set, keeps the best epoch's
 * weights in `weights` and checkpoints (trainer.json last, so that it names complete files). */
void run_epochs(TrainableCostModel &model, const Split &split,
                const std::vector<const TrainingSample *> &val_set, const TrainerOptions &opt,
                const fs::path &weights, const fs::path &ckpt, Progression &pr) {
    const int ppstep = std::max(1, opt.pipelines_per_step);
    const int steps = int((split.train_names.size() + size_t(ppstep) - 1) / size_t(ppstep));
    Progress bar(opt.progress);
    auto t0 = Clock::now();
    int steps_done = 0;
    const int total_steps = std::max(1, (opt.epochs - pr.start_epoch) * steps);
    double last_val =
        pr.history.empty() ? -1.0 : pr.history.back().value("val_pairwise_accuracy", -1.0);
    for (int epoch = pr.start_epoch; epoch < opt.epochs; epoch++) {
        std::mt19937_64 rng(opt.seed + uint64_t(epoch));
        std::vector<std::string> order = split.train_names;
        std::shuffle(order.begin(), order.end(), rng);
        double loss_sum = 0;
        for (int s = 0; s < steps; s++) {
            std::vector<const TrainingSample *> chunk;
            for (int i = s * ppstep; i < std::min(int(order.size()), (s + 1) * ppstep); i++) {
                std::vector<const TrainingSample *> v = split.train.at(order[size_t(i)]);
                std::shuffle(v.begin(), v.end(), rng);
                if (int(v.size()) > opt.max_samples_per_pipeline)
                    v.resize(size_t(std::max(2, opt.max_samples_per_pipeline)));
                chunk.insert(chunk.end(), v.begin(), v.end());
            }
            loss_sum += model.train_step(chunk, opt.loss);
            steps_done++;
            double el = std::chrono::duration<double>(Clock::now() - t0).count();
            double eta = el / steps_done * (total_steps - steps_done);
            bar.draw(epoch + 1, opt.epochs, s + 1, steps, loss_sum / (s + 1), last_val, eta, false);
        }
        RankingMetrics vm = evaluate(model, val_set, opt.loss.tie_log_ratio);
        last_val = vm.pairwise_accuracy;
        double el = std::chrono::duration<double>(Clock::now() - t0).count();
        bar.draw(epoch + 1, opt.epochs, steps, steps, loss_sum / std::max(1, steps), last_val,
                 el / steps_done * (total_steps - steps_done), true);
        bar.end_line();
        pr.history.push_back({{"epoch", epoch + 1},
                              {"loss", loss_sum / std::max(1, steps)},
                              {"val_pairwise_accuracy", vm.pairwise_accuracy},
                              {"val_kendall_tau", vm.kendall_tau},
                              {"val_top1_regret_geomean", vm.top1_regret_geomean}});
        if (vm.pairwise_accuracy > pr.best_accuracy) {
            pr.best_accuracy = vm.pairwise_accuracy;
            pr.best_epoch = epoch + 1;
            model.save(weights.string());
        }
        model.save((ckpt / "model.sxw").string());
        model.save_optimizer_state((ckpt / "optimizer.pt").string());
        nlohmann::json st = {{"epochs_done", epoch + 1},
                             {"best_epoch", pr.best_epoch},
                             {"best_accuracy", pr.best_accuracy},
                             {"seed", opt.seed},
                             {"history", pr.history}};
        write_file_atomically(ckpt / "trainer.json", st.dump(2));
    }
}

/** scatter.csv (split, pipeline, measured, predicted and, with a baseline model, the
 * baseline's prediction: blends of the two can be judged offline) and, if a plot script is
 * given, scatter.png from it. */
void write_scatter(const fs::path &out, const Split &split, const std::vector<double> &train_pred,
                   const std::vector<double> &val_pred, const std::vector<double> &train_base,
                   const std::vector<double> &val_base, const TrainerOptions &opt) {
    const fs::path csv = out / "scatter.csv";
    {
        const bool base = opt.baseline != nullptr;
        std::ofstream f(csv, std::ios::trunc);
        f << "split,pipeline,source,measured_seconds,predicted_seconds"
          << (base ? ",baseline_seconds" : "") << "\n";
        auto dump = [&](const char *split_name, const std::vector<const TrainingSample *> &s,
                        const std::vector<double> &p, const std::vector<double> &b) {
            for (size_t i = 0; i < s.size(); i++) {
                f << split_name << ",\"" << s[i]->pipeline << "\",\"" << s[i]->source << "\","
                  << s[i]->runtime_seconds << "," << p[i];
                if (base) f << "," << b[i];
                f << "\n";
            }
        };
        dump("train", split.train_all, train_pred, train_base);
        if (!split.validation.empty()) dump("validation", split.validation, val_pred, val_base);
    }
    if (opt.plot_script.empty()) return;
    // The first python3 on PATH may lack matplotlib (pyenv, venvs): fall back to the system
    // interpreter, where Debian's python3-matplotlib lives.
    std::string tried;
    for (std::string py : {opt.python, std::string("/usr/bin/python3")}) {
        std::string cmd = "'" + py + "' '" + opt.plot_script + "' '" + csv.string() + "' '" +
                          (out / "scatter.png").string() + "' 2>/dev/null";
        tried += (tried.empty() ? "" : "; ") + cmd;
        if (std::system(cmd.c_str()) == 0) return;
    }
    std::fprintf(stderr,
                 "sextant-train: warning: plotting failed (%s): is matplotlib installed? "
                 "scatter.csv is still written\n",
                 tried.c_str());
}

} // namespace

TrainResult train_cost_model(TrainableCostModel &model, const std::vector<TrainingSample> &samples,
                             const TrainerOptions &opt) {
    if (samples.empty()) throw UserError("no training samples");
    const Split split = split_samples(samples, opt);
    const std::vector<const TrainingSample *> &train_all = split.train_all;
    const bool have_val = !split.validation.empty();
    const std::vector<const TrainingSample *> &val_set = have_val ? split.validation : train_all;
    if (!have_val && !opt.validation_pipelines.empty())
        throw UserError("--val-pipelines '" + opt.validation_pipelines +
                        "' matches no pipeline with two or more samples");
    if (!have_val)
        std::fprintf(stderr,
                     "sextant-train: warning: no validation pipelines (%d%% held out of "
                     "%zu); reporting metrics on the training set\n",
                     opt.validation_percent, split.pipelines);

    const fs::path out(opt.out_dir), ckpt = fs::path(opt.out_dir) / "checkpoint";
    fs::create_directories(ckpt);
    const fs::path weights = out / "weights.sxw";
    Progression pr;
    if (opt.resume)
        pr = resume_from_checkpoint(model, ckpt, opt);
    else if (!opt.fine_tune)
        model.fit_normalization(train_all);
    run_epochs(model, split, val_set, opt, weights, ckpt, pr);

    TrainResult res;
    res.epochs_run = opt.epochs - pr.start_epoch;
    res.best_epoch = pr.best_epoch;
    if (fs::exists(weights)) model.load(weights.string());
    std::vector<double> val_pred, train_pred;
    res.validation = evaluate(model, val_set, opt.loss.tie_log_ratio, &val_pred);
    res.train = evaluate(model, train_all, opt.loss.tie_log_ratio, &train_pred);

    nlohmann::json summary = {
        {"samples", samples.size()},
        {"pipelines", split.pipelines},
        {"train_samples", split.train_samples},
        {"train_pipelines", split.train.size()},
        {"validation_samples", split.validation.size()},
        {"validation_pipelines", res.validation.pipelines},
        {"validation_percent", opt.validation_percent},
        {"validation_offset", opt.validation_offset},
        {"validation_pipeline_text", opt.validation_pipelines},
        {"repeat_text", opt.repeat_text},
        {"repeat_times", opt.repeat_times},
        {"epochs", opt.epochs},
        {"best_epoch", pr.best_epoch},
        {"seed", opt.seed},
        {"learning_rate", opt.loss.learning_rate},
        {"absolute_weight", opt.loss.absolute_weight},
        {"pair_temperature", opt.loss.pair_temperature},
        {"ranking_loss", opt.loss.ranking == RankingLoss::Throughput ? "throughput" : "pairwise"},
        {"weight_pairs_by_gap", opt.loss.weight_pairs_by_gap},
        {"fine_tuned", opt.fine_tune}};
    nlohmann::json metrics = {{"validation", nlohmann::json(res.validation)},
                              {"train", nlohmann::json(res.train)},
                              {"validation_is_train_set", !have_val}};
    std::vector<double> val_base, train_base;
    if (opt.baseline) {
        res.baseline_validation =
            evaluate(*opt.baseline, val_set, opt.loss.tie_log_ratio, &val_base);
        res.baseline_train =
            evaluate(*opt.baseline, train_all, opt.loss.tie_log_ratio, &train_base);
        metrics["baseline"] = {{"model", opt.baseline->name()},
                               {"validation", nlohmann::json(res.baseline_validation)},
                               {"train", nlohmann::json(res.baseline_train)}};
    }
    model.set_manifest_entry("training", summary.dump());
    model.set_manifest_entry("metrics", metrics.dump());
    model.set_manifest_entry("target", nlohmann::json(opt.target_machine).dump());
    model.save(weights.string());
    res.weights_path = weights.string();

    nlohmann::json report = {{"weights", weights.string()},
                             {"data", summary},
                             {"metrics", metrics},
                             {"history", pr.history}};
    res.report_path = (out / "report.json").string();
    write_file_atomically(res.report_path, report.dump(2) + "\n");
    write_scatter(out, split, train_pred, val_pred, train_base, val_base, opt);
    return res;
}

} // namespace sextant
