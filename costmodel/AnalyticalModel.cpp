#include "CostModel.h"
#include "CostTerms.h"

namespace sextant {

double CostModel::allocator_cost(const AllocatorEstimate &e) const {
    return allocator_seconds(e);
}

std::vector<double> CostModel::predict(const FeatureBatch &batch) {
    std::vector<double> per_row = predict_stages(batch);
    std::vector<double> out(batch.num_states, 0.0);
    for (size_t i = 0; i < per_row.size(); i++)
        out[batch.state_index[i]] += per_row[i];
    return out;
}

AnalyticalModel::AnalyticalModel(int parallelism, double llc_bytes)
    : parallelism_(parallelism), llc_bytes_(llc_bytes) {}

const std::array<double, 15> &AnalyticalModel::coefficients() {
    // Seconds per unit, for a ~3 GHz x86 core with AVX2 (docs/COSTMODEL.md).
    static const std::array<double, 15> c = {
        0.35e-9, // vector_ops: ~1 vector op per cycle
        0.35e-9, // scalar_ops
        0.4e-9,  // dense_loads
        1.0e-9,  // gather_loads (per lane)
        0.2e-9,  // broadcast_loads
        0.02e-9, // cache_bytes (~50 GB/s per core from L2)
        0.12e-9, // dram_bytes (~8 GB/s per channel)
        0.05e-9, // store_bytes
        0.5e-6,  // allocations (malloc + free of a heap buffer)
        0.0,     // page_faults: priced per state (allocator_seconds), not per stage
        0.7e-9,  // loop_overhead
        3.0e-6,  // parallel_launches
        0.2e-6,  // task_overhead
        0.5e-9,  // false_sharing
        0.05e-9, // cache_spill
    };
    static_assert(kNumCostTerms == 15, "update the analytical coefficients");
    return c;
}

std::vector<double> AnalyticalModel::predict_stages(const FeatureBatch &batch) {
    const auto &c = coefficients();
    std::vector<double> out(batch.size());
    for (size_t i = 0; i < batch.size(); i++) {
        TermRow t = cost_terms(batch.schedule[i], parallelism_, llc_bytes_);
        double s = 0;
        for (int k = 0; k < kNumCostTerms; k++)
            s += c[k] * t[k];
        out[i] = s;
    }
    return out;
}

} // namespace sextant
