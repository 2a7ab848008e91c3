// TorchCostModel: the learned cost model — a small LibTorch net that predicts, per stage, a
// non-negative multiplier for each hand-designed cost term (CostTerms.h); predicted seconds of
// a stage = sum_k multiplier_k * scale_k * term_k. Untrained, every multiplier is ~1 and the
// net reproduces AnalyticalModel. This header is Torch-free (pimpl); Torch is included only by
// TorchModel.cpp. Architecture, loss and weights format: docs/COSTMODEL.md.
#pragma once

#include "costmodel/TrainableCostModel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sextant {

class TorchCostModel : public TrainableCostModel {
public:
    /** Value of the manifest's "model" field. */
    static constexpr const char *kModelKind = "sextant-cost-net-v1";

    /** A fresh net; calls torch::set_num_threads(config.num_threads). */
    explicit TorchCostModel(const TorchModelConfig &config);
    ~TorchCostModel() override;
    TorchCostModel(const TorchCostModel &) = delete;
    TorchCostModel &operator=(const TorchCostModel &) = delete;

    /** Predicted seconds per row. Runs the net in plain C++ (InferenceNet.h), not Torch: the
     * algorithm side is cached per table entry across calls (recomputed when the entry's
     * features, or any parameter, change), so a call costs the schedule side per row. */
    std::vector<double> predict_stages(const FeatureBatch &batch) override;
    std::string name() const override { return "torch"; }
    /** The allocator's faults at the learned prices (parameter "allocator.log_price"). */
    double allocator_cost(const AllocatorEstimate &e) const override;

    void fit_normalization(const std::vector<const TrainingSample *> &samples) override;
    double train_step(const std::vector<const TrainingSample *> &samples,
                      const LossOptions &options) override;
    void save(const std::string &path) const override;
    /** Adopts the file's net sizes; keeps this model's parallelism, llc_bytes and threads.
     * Discards any optimizer state. */
    void load(const std::string &path) override;
    void save_optimizer_state(const std::string &path) const override;
    void load_optimizer_state(const std::string &path) override;
    void set_manifest_entry(const std::string &key, const std::string &json_text) override;
    std::string manifest_json() const override;

    const TorchModelConfig &config() const;

    /** Named tensors (trained parameters, then the fixed buffers "schedule_mean",
     * "schedule_std", "term_scale"), as stored in the weights file. For tests and tools. */
    std::vector<std::string> parameter_names() const;
    std::vector<int64_t> parameter_shape(const std::string &name) const;
    /** Row-major values. Throws std::invalid_argument for an unknown name or a wrong size. */
    std::vector<double> parameter(const std::string &name) const;
    void set_parameter(const std::string &name, const std::vector<double> &values);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sextant
