// The ranking terms of the learned model's loss (RankingLoss.h).
#include "RankingLoss.h"

namespace sextant {

torch::Tensor pairwise_term(const torch::Tensor &lp, const torch::Tensor &lr,
                            const torch::Tensor &g, const LossOptions &opt) {
    torch::Tensor same = g.unsqueeze(1) == g.unsqueeze(0);
    torch::Tensor dt = lr.unsqueeze(1) - lr.unsqueeze(0); // > 0: i measured slower than j
    torch::Tensor mask = same & (dt > opt.tie_log_ratio);
    if (!mask.any().item<bool>()) return torch::zeros({}, torch::kDouble);
    torch::Tensor dp = lp.unsqueeze(1) - lp.unsqueeze(0);
    torch::Tensor pair = torch::softplus(-dp.masked_select(mask) / opt.pair_temperature);
    if (!opt.weight_pairs_by_gap) return pair.mean();
    torch::Tensor w = dt.masked_select(mask).clamp_max(3.0);
    return (pair * w).sum() / w.sum();
}

torch::Tensor throughput_term(const torch::Tensor &lp, const torch::Tensor &lr,
                              const torch::Tensor &g, int64_t groups) {
    torch::Tensor predicted_rel = torch::zeros_like(lp);
    torch::Tensor measured_rel = torch::zeros_like(lr);
    for (int64_t k = 0; k < groups; k++) {
        torch::Tensor members = (g == k).nonzero().squeeze(1);
        torch::Tensor p = lp.index_select(0, members);
        torch::Tensor r = lr.index_select(0, members);
        predicted_rel = predicted_rel.index_put({members}, torch::exp(p.min() - p));
        measured_rel = measured_rel.index_put({members}, torch::exp(r.min() - r));
    }
    return (predicted_rel - measured_rel).pow(2).mean();
}

} // namespace sextant
