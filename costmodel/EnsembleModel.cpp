#include "EnsembleModel.h"

#include <algorithm>
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
    std::vector<double> out(rows), logs(members_.size());
    for (size_t r = 0; r < rows; r++) {
        double sum = 0, log_sum = 0;
        bool all_positive = true;
        for (size_t m = 0; m < each.size(); m++) {
            sum += each[m][r];
            all_positive = all_positive && each[m][r] > 0;
            logs[m] = all_positive ? std::log(each[m][r]) : 0;
            log_sum += logs[m];
        }
        if (!all_positive) {
            out[r] = sum / n;
            continue;
        }
        const double mean = log_sum / n;
        double var = 0;
        for (double l : logs)
            var += (l - mean) * (l - mean);
        out[r] = std::exp(mean + caution_ * std::sqrt(var / n));
    }
    return out;
}

double EnsembleModel::allocator_cost(const AllocatorEstimate &e) const {
    double c = 0;
    for (const auto &m : members_)
        c = std::max(c, m->allocator_cost(e));
    return c;
}

std::string EnsembleModel::name() const {
    return "ensemble of " + std::to_string(members_.size()) + " (" + members_[0]->name() + ")";
}

} // namespace sextant
