// Trainer: fits a TrainableCostModel to measured samples — epochs of Adam steps over shuffled
// training pipelines, validation on pipelines held out by a stable hash of their id,
// a checkpoint each epoch (resumable), and a report (JSON + predicted-vs-measured scatter).
// Works through the Torch-free TrainableCostModel interface. See docs/COSTMODEL.md.
#pragma once

#include "costmodel/Metrics.h"
#include "costmodel/TrainableCostModel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sextant {

struct TrainerOptions {
    /** Total epochs (a resumed run continues up to this count). */
    int epochs = 30;
    /** Pipelines per optimizer step; pairs are formed within each pipeline. */
    int pipelines_per_step = 8;
    /** At most this many samples of one pipeline per step (a random subset each epoch). */
    int max_samples_per_pipeline = 64;
    /** Percentage of pipelines held out for validation (by stable_hash of the id). */
    int validation_percent = 15;
    /** Which hash buckets are held out: [offset, offset + percent) mod 100 (folds). */
    int validation_offset = 0;
    /** If not empty, the validation pipelines are those whose id contains this text (one
     * real pipeline held out, say "camera_pipe()"), instead of the hash buckets above. */
    std::string validation_pipelines;
    /** Train on this percentage of the pipelines not held out (in_training_fraction); the
     * validation set is the same at every percentage: a learning curve's points. */
    int train_percent = 100;
    /** Training pipelines whose id contains `repeat_text` are trained on `repeat_times` times
     * per epoch: a few real pipelines' samples (the bench's autotuning runs) among hundreds of
     * random ones. Empty text or 1: every pipeline once. */
    std::string repeat_text;
    int repeat_times = 1;
    /** Seeds the shuffling (epoch e uses seed + e, so a resumed run repeats the same order). */
    uint64_t seed = 1;
    LossOptions loss;
    /** Output directory: weights.sxw (the best epoch by validation pairwise accuracy),
     * report.json, scatter.csv, scatter.png, checkpoint/. Created if missing. */
    std::string out_dir = "train-out";
    /** Continue from out_dir/checkpoint instead of starting afresh. */
    bool resume = false;
    /** Progress bar on stderr. */
    bool progress = true;
    /** Python script that draws scatter.png from scatter.csv; empty = no plot. */
    std::string plot_script;
    /** Interpreter for plot_script (with matplotlib); /usr/bin/python3 is tried next. */
    std::string python = "python3";
    /** Free text recorded in the manifest (e.g. the CPU the samples were measured on). */
    std::string target_machine;
    /** True if the model already holds weights to fine-tune (keep its normalization). */
    bool fine_tune = false;
    /** If set, also scored on the validation and training sets, for the report (the
     * analytical model, so a report says whether the net predicts better than it). */
    CostModel *baseline = nullptr;
};

struct TrainResult {
    RankingMetrics train, validation;
    /** opt.baseline's metrics on the same sets (pipelines == 0 if there was none). */
    RankingMetrics baseline_train, baseline_validation;
    int best_epoch = -1;
    int epochs_run = 0;
    std::string weights_path, report_path;
};

/** Trains `model` in place on `samples`; on return it holds the best epoch's weights, which
 * are also saved (with the manifest's training summary and metrics) to out_dir/weights.sxw.
 * Throws UserError for unusable data (no samples, no pipeline with two samples) or a
 * missing checkpoint on resume. */
TrainResult train_cost_model(TrainableCostModel &model, const std::vector<TrainingSample> &samples,
                             const TrainerOptions &options);

/** JSON object text of a RankingMetrics (used in reports and manifests). */
std::string metrics_json(const RankingMetrics &m);

} // namespace sextant
