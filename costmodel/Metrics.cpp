#include "Metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace sextant {

RankingMetrics ranking_metrics(const std::vector<std::string> &pipeline,
                               const std::vector<double> &predicted,
                               const std::vector<double> &measured, double tie_log_ratio) {
    if (pipeline.size() != predicted.size() || pipeline.size() != measured.size())
        throw std::invalid_argument("ranking_metrics: inputs differ in length");
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t i = 0; i < pipeline.size(); i++)
        groups[pipeline[i]].push_back(i);
    RankingMetrics m;
    long long correct = 0;
    double tau_sum = 0, log_regret_sum = 0, abs_err = 0;
    for (const auto &g : groups) {
        const std::vector<size_t> &ix = g.second;
        if (ix.size() < 2) continue;
        m.pipelines++;
        m.samples += int(ix.size());
        long long concordant = 0, discordant = 0, ties_true = 0, ties_pred = 0, total = 0;
        for (size_t a = 0; a < ix.size(); a++) {
            double lp_a = std::log(std::max(predicted[ix[a]], 1e-300));
            abs_err += std::fabs(lp_a - std::log(measured[ix[a]]));
            for (size_t b = a + 1; b < ix.size(); b++) {
                double dt = std::log(measured[ix[a]]) - std::log(measured[ix[b]]);
                double dp = predicted[ix[a]] - predicted[ix[b]];
                total++;
                bool tie_t = std::fabs(dt) <= tie_log_ratio;
                bool tie_p = dp == 0;
                if (tie_t) ties_true++;
                if (tie_p) ties_pred++;
                if (tie_t || tie_p) continue;
                if ((dt > 0) == (dp > 0))
                    concordant++;
                else
                    discordant++;
            }
        }
        // Pairs tied in the prediction but not in the measurement count as wrong.
        long long untied_true = total - ties_true;
        m.pairs += untied_true;
        correct += concordant;
        double denom = std::sqrt(double(total - ties_true) * double(total - ties_pred));
        tau_sum += denom > 0 ? double(concordant - discordant) / denom : 0.0;
        size_t best_pred = ix[0], best_true = ix[0];
        for (size_t i : ix) {
            if (predicted[i] < predicted[best_pred]) best_pred = i;
            if (measured[i] < measured[best_true]) best_true = i;
        }
        double regret = measured[best_pred] / measured[best_true];
        log_regret_sum += std::log(regret);
        m.top1_regret_max = std::max(m.top1_regret_max, regret);
    }
    if (m.pipelines > 0) {
        m.kendall_tau = tau_sum / m.pipelines;
        m.top1_regret_geomean = std::exp(log_regret_sum / m.pipelines);
        m.mean_abs_log_error = abs_err / m.samples;
    }
    m.pairwise_accuracy = m.pairs > 0 ? double(correct) / double(m.pairs) : 0.0;
    return m;
}

} // namespace sextant
