// The ranking terms of the learned model's training loss (LossOptions::ranking), over one
// training step's samples. Torch tensors: only costmodel/torch/ includes this header.
#pragma once

#include "costmodel/TrainableCostModel.h"

#include <torch/types.h>

namespace sextant {

/** Logistic loss over the pairs of one pipeline whose measured log-runtimes (`lr`) differ by
 * more than the tie threshold, on the predicted ones (`lp`); `g` numbers each sample's
 * pipeline. Zero if there is no such pair. */
torch::Tensor pairwise_term(const torch::Tensor &lp, const torch::Tensor &lr,
                            const torch::Tensor &g, const LossOptions &opt);

/** Per pipeline (`g` numbers them, `groups` of them): each schedule's throughput relative to
 * the fastest one, predicted (against the predicted fastest) and measured (against the
 * measured fastest), squared error; both lie in (0, 1], so no single mistake dominates. */
torch::Tensor throughput_term(const torch::Tensor &lp, const torch::Tensor &lr,
                              const torch::Tensor &g, int64_t groups);

} // namespace sextant
