#include "EnsembleModel.h"

#include <cmath>
#include <stdexcept>

namespace sextant {

EnsembleModel::EnsembleModel(std::vector<std::unique_ptr<CostModel>> members, double caution)
    : members_(std::move(members)), caution_(caution) {
    if (members_.empty()) throw std::invalid_argument("EnsembleModel needs at least one member");
}

std::vector<double> EnsembleModel::predict_stages(const FeatureBatch &batch) {
    std::vector<std::vector<double>> each;
    for (auto &m : members_)
        each.push_back(m->predict_stages(batch));
    const size_t rows = each[0].size();
    const double n = double(members_.size());
    std::vector<double> out(rows);
    for (size_t r = 0; r < rows; r++) {
        bool all_positive = true;
        double sum = 0, log_sum = 0;
        for (const auto &p : each) {
            all_positive = all_positive && p[r] > 0;
            sum += p[r];
            log_sum += p[r] > 0 ? std::log(p[r]) : 0;
        }
        if (!all_positive) {
            out[r] = sum / n;
            continue;
        }
        double mean = log_sum / n, var = 0;
        for (const auto &p : each)
            var += (std::log(p[r]) - mean) * (std::log(p[r]) - mean);
        out[r] = std::exp(mean + caution_ * std::sqrt(var / n));
    }
    return out;
}

std::string EnsembleModel::name() const {
    return "ensemble of " + std::to_string(members_.size()) + " (" + members_[0]->name() + ")";
}

} // namespace sextant
