// CostModel: predicts seconds per pipeline run for candidate schedules; lower is better.
// The search calls predict_stages() once per batch of candidates (never per state).
#pragma once

#include "featurizer/Featurizer.h"

#include <array>

#include <memory>
#include <string>
#include <vector>

namespace sextant {

/** The machine a cost model's terms are computed for when nothing says otherwise: a learned
 * model's config (TorchModelConfig), synthetic training data, the inference benchmark. The
 * plugin always passes the target's (MachineInfo, filled from Halide's MachineParams), the
 * sampler and autotuner this host's (host_machine). */
constexpr int kDefaultModelParallelism = 8;
constexpr double kDefaultModelLlcBytes = 32.0 * 1024 * 1024;

class CostModel {
public:
    virtual ~CostModel() = default;
    /** Predicted seconds for each row (one stage of one candidate) of `batch`, in order.
     * Deterministic for a given model. */
    virtual std::vector<double> predict_stages(const FeatureBatch &batch) = 0;
    /** Predicted seconds per candidate: the sum of its rows. */
    std::vector<double> predict(const FeatureBatch &batch);
    /** Predicted seconds per run the allocator's page faults cost a whole schedule, added to
     * the sum over its stages (ModelEvaluator, predict_samples): one cost, searched and
     * trained. Default: glibc's prices of CostTerms.h (allocator_seconds); a learned model
     * learns its own. */
    virtual double allocator_cost(const AllocatorEstimate &e) const;
    virtual std::string name() const = 0;
};

/** Hand-set coefficients over the cost terms; needs no weights. See docs/COSTMODEL.md. */
class AnalyticalModel : public CostModel {
public:
    explicit AnalyticalModel(int parallelism, double llc_bytes);
    std::vector<double> predict_stages(const FeatureBatch &batch) override;
    std::string name() const override { return "analytical"; }
    /** Seconds per unit of each term. */
    static const std::array<double, 15> &coefficients();

private:
    int parallelism_;
    double llc_bytes_;
};

} // namespace sextant
