// The learned model for programs that link LibTorch (tools, tests): load_learned_model of
// costmodel/LearnedModel.h, calling the Torch model directly.
#include "costmodel/LearnedModel.h"
#include "costmodel/TrainableCostModel.h"

namespace sextant {

std::unique_ptr<CostModel> load_learned_model(const std::string &weights, int parallelism,
                                              double llc_bytes) {
    return load_torch_cost_model(weights, parallelism, llc_bytes, 1);
}

} // namespace sextant
