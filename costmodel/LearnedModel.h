// load_learned_model: the learned cost model of a weights file, as a plain CostModel, behind a
// Torch-free declaration. Each program links one definition, chosen when it is linked:
//  - costmodel/torch/LearnedLoader.cpp (in sextant_costmodel_torch): the LibTorch model itself,
//    for tools and tests (CMake target sextant_scheduler);
//  - plugin/LearnedModuleLoader.cpp: the plugin dlopens libsextant_learned_model.so beside it
//    on first use, so that generator runs with the analytical model never load LibTorch;
//  - costmodel/NoLearnedModel.cpp: a build without LibTorch, which says so.
// plugin/ModelChoice.h decides when to call it (and where the weights are).
#pragma once

#include "costmodel/CostModel.h"

#include <memory>
#include <string>

namespace sextant {

/** The learned model of an existing weights file, its cost terms computed for a machine with
 * `parallelism` cores and `llc_bytes` of last-level cache. Throws UserError for a bad file or
 * a program without the learned model. */
std::unique_ptr<CostModel> load_learned_model(const std::string &weights, int parallelism,
                                              double llc_bytes);

} // namespace sextant
