// load_learned_model of costmodel/LearnedModel.h in a build without LibTorch.
#include "costmodel/LearnedModel.h"
#include "support/Errors.h"

namespace sextant {

std::unique_ptr<CostModel> load_learned_model(const std::string &weights, int, double) {
    throw UserError("the learned cost model (weights '" + weights +
                    "') needs a Sextant built with LibTorch (SEXTANT_WITH_TORCH=ON); set "
                    "SEXTANT_COST_MODEL=analytical.");
}

} // namespace sextant
