// Metrics: how well predicted runtimes rank the measured ones, per pipeline and overall.
// Pure functions of (pipeline, predicted, measured) triples; no Torch.
#pragma once

#include <string>
#include <vector>

namespace sextant {

struct RankingMetrics {
    /** Pipelines with >= 2 samples (the others cannot be ranked) and their samples. */
    int pipelines = 0;
    int samples = 0;
    /** Pairs of one pipeline with different measured runtimes (log-ratio > tie) ... */
    long long pairs = 0;
    /** ... and the fraction the prediction orders the same way (pooled over pipelines). */
    double pairwise_accuracy = 0;
    /** Kendall tau-b per pipeline, averaged over pipelines. */
    double kendall_tau = 0;
    /** Measured runtime of the predicted-fastest schedule / the measured fastest (>= 1):
     * geometric mean and worst over pipelines. */
    double top1_regret_geomean = 1;
    double top1_regret_max = 1;
    /** Mean |log(predicted / measured)| over samples (calibration). */
    double mean_abs_log_error = 0;
};

/** `pipeline[i]` groups the samples; `predicted` and `measured` are seconds. Pairs whose
 * measured log-ratio is <= tie_log_ratio are ties, excluded from pairwise_accuracy. */
RankingMetrics ranking_metrics(const std::vector<std::string> &pipeline,
                               const std::vector<double> &predicted,
                               const std::vector<double> &measured, double tie_log_ratio = 0.05);

} // namespace sextant
