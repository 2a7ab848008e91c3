// TrainableCostModel: a CostModel whose parameters the trainer fits to measured runtimes, and
// that saves/loads them as a weights file. This header is Torch-free: the LibTorch
// implementation (costmodel/torch/) hides behind the factories below, so the plugin and tools
// include only this. See docs/COSTMODEL.md for the net, the loss and the weights format.
#pragma once

#include "costmodel/CostModel.h"
#include "costmodel/TrainingData.h"

#include <memory>
#include <string>
#include <vector>

namespace sextant {

/** What the ranking part of the loss compares, per pipeline (`sextant-train --loss`). */
enum class RankingLoss {
    /** Logistic loss on every pair of schedules apart by more than the tie threshold. */
    Pairwise,
    /** Squared error of each schedule's throughput relative to its pipeline's fastest (in the
     * batch): predicted exp(min log p - log p_i) against measured exp(min log r - log r_i),
     * both in (0, 1]. A slow schedule costs little unless it is predicted fast, and the
     * fastest ones weigh most, so the net's capacity goes to the fast end, where the search's
     * picks are. */
    Throughput,
};

/** Loss and optimizer settings of one training step (docs/COSTMODEL.md, "Loss"). */
struct LossOptions {
    /** The ranking term; the absolute term is added to either. */
    RankingLoss ranking = RankingLoss::Pairwise;
    /** Adam learning rate. */
    double learning_rate = 2e-3;
    /** Weight of the absolute term: mean squared error of log(predicted / measured) seconds. */
    double absolute_weight = 0.1;
    /** Logistic pairwise term: softplus(-sign * dpred / temperature), dpred in log-seconds.
     * Smaller = sharper; 0.1 means a 10% predicted gap is one logit. */
    double pair_temperature = 0.1;
    /** Pairs whose measured runtimes differ by less than this log-ratio are ties (ignored).
     * 0.05: below a 5% gap two measurements of a pair agree on its order barely more often
     * than a coin (docs/SAMPLING.md, "Noise ceiling"). */
    double tie_log_ratio = 0.05;
    /** Weight each pair by its measured log-ratio (capped at 3) instead of 1: ordering two
     * schedules 10x apart matters more to the search than ordering two 5% apart. */
    bool weight_pairs_by_gap = false;
    /** Decoupled weight decay (AdamW) on the trained parameters; 0 = plain Adam. */
    double weight_decay = 0;
    /** Soft prior toward the analytical model: this weight times the mean squared log of the
     * cost-term multipliers (over rows and terms) plus the squared log-prices of the
     * allocator's faults. With a wide multiplier range (R >= 8) it replaces the hard cap as
     * what keeps the net near the analytical prices where the data says little. 0: off. */
    double prior_weight = 0;
};

class TrainableCostModel : public CostModel {
public:
    /** Sets the input normalization (schedule feature mean/std after log1p) from training
     * rows. Call once before the first train_step of a fresh model; stored in the weights. */
    virtual void fit_normalization(const std::vector<const TrainingSample *> &samples) = 0;
    /** One optimizer step on `samples`, which may mix several pipelines (pairs are formed only
     * within a pipeline). Returns the loss before the step. Creates the optimizer on first
     * use; its state persists across calls (save_optimizer_state/load_optimizer_state). */
    virtual double train_step(const std::vector<const TrainingSample *> &samples,
                              const LossOptions &options) = 0;
    /** Weights file (docs/COSTMODEL.md, "Weights file"). Throws UserError on I/O failure. */
    virtual void save(const std::string &path) const = 0;
    /** Replaces the parameters with a weights file's. Throws UserError (naming the path, the
     * field, expected and found values) for a corrupt, truncated or mismatched file; the
     * model is unchanged then. */
    virtual void load(const std::string &path) = 0;
    /** Optimizer state (Adam moments, step counts) for resumable training. */
    virtual void save_optimizer_state(const std::string &path) const = 0;
    virtual void load_optimizer_state(const std::string &path) = 0;
    /** Stores a JSON value under `key` in the manifest written by save() (e.g. "training",
     * "metrics", "target"). `json_text` must parse as JSON. */
    virtual void set_manifest_entry(const std::string &key, const std::string &json_text) = 0;
    /** The manifest save() would write, as JSON text. */
    virtual std::string manifest_json() const = 0;
};

/** Net sizes and run-time settings of the LibTorch model. */
struct TorchModelConfig {
    /** Machine the cost terms are computed for (cores, last-level cache bytes). */
    int parallelism = kDefaultModelParallelism;
    double llc_bytes = kDefaultModelLlcBytes;
    /** Width of the algorithm-feature embedding (non-negative weights). */
    int algorithm_embedding = 16;
    /** Width of the schedule-feature embedding. */
    int schedule_embedding = 16;
    /** Width of the hidden layer of the head MLP. */
    int hidden = 32;
    /** Bound R on each term's multiplier: m = R^tanh(z), so m lies in [1/R, R] and is 1 at
     * z = 0. The search maximises over the model's mistakes; a bounded multiplier keeps the
     * learned model within a factor R of the analytical coefficient per term, so no schedule
     * can be predicted free because the net switched a term off. 0: unbounded
     * (m = softplus(z) / ln 2, the first design). */
    double multiplier_range = 4.0;
    /** multiplier_range is 0 (unbounded) or in (1, 1e6). */
    static bool valid_multiplier_range(double r) { return r == 0 || (r > 1 && r < 1e6); }
    /** Torch intra-op threads, set with torch::set_num_threads when the model is made.
     * Default 1: the search is single-threaded per candidate batch and Halide's own thread
     * pool / the generator's threads must not be oversubscribed by Torch's OpenMP pool. */
    int num_threads = 1;
    /** Seed of the parameter initialisation (a local generator; no global RNG). */
    uint64_t seed = 1;
    /** Learn global prices only: the output layer's weights stay 0, so every stage of every
     * pipeline gets the same multiplier per term (R^tanh(output.bias)), and only those K
     * multipliers and the allocator's two fault prices are trained. The analytical model's
     * structure with prices fitted to measurements: nothing per stage for the search to
     * exploit. */
    bool global_prices = false;
    /** The multipliers read the schedule features only: the algorithm embedding's weights
     * start at softplus(-40) ~ 0 and stay there (not trained), so a stage's operations and
     * access patterns reach the net only through its cost terms. */
    bool schedule_only = false;
};

/** A fresh, untrained net: predictions start near AnalyticalModel's. */
std::unique_ptr<TrainableCostModel> make_torch_cost_model(int parallelism, double llc_bytes);
std::unique_ptr<TrainableCostModel> make_torch_cost_model(const TorchModelConfig &config);
/** Loads a weights file. Net sizes come from the file; parallelism/llc_bytes > 0 override the
 * training machine's recorded values (the cost terms are computed for the machine at hand).
 * Throws UserError for a bad file (see TrainableCostModel::load). */
std::unique_ptr<TrainableCostModel> load_torch_cost_model(const std::string &path,
                                                          int parallelism = 0, double llc_bytes = 0,
                                                          int num_threads = 1);

} // namespace sextant
