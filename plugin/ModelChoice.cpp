#include "ModelChoice.h"

#include "plugin/dag/Errors.h"

#include <dlfcn.h>

#include <fstream>

namespace sextant {

std::string default_weights_path() {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&default_weights_path), &info) && info.dli_fname) {
        std::string so = info.dli_fname;
        std::string dir = so.substr(0, so.find_last_of('/') + 1);
        std::string installed = dir + SEXTANT_INSTALLED_WEIGHTS_RELATIVE;
        if (std::ifstream(installed).good()) return installed;
    }
    return SEXTANT_SOURCE_WEIGHTS;
}

std::unique_ptr<CostModel> make_cost_model(const std::string &name, const std::string &weights,
                                           const MachineInfo &m) {
    if (name == "analytical")
        return std::make_unique<AnalyticalModel>(m.parallelism, double(m.last_level_cache_bytes));
    std::string path = weights.empty() ? default_weights_path() : weights;
    if (!path.empty() && path.back() == '/') path += "sextant.sxw";
    if (std::ifstream(path + "/sextant.sxw").good()) path += "/sextant.sxw";
    if (!std::ifstream(path).good()) {
        throw UserError("no learned weights at '" + path +
                        "'. Train some with sextant-train and point SEXTANT_WEIGHTS (or "
                        "HL_WEIGHTS_DIR) at them, or set SEXTANT_COST_MODEL=analytical to use "
                        "the analytical model.");
    }
    return load_learned_model(path, m.parallelism, double(m.last_level_cache_bytes));
}

} // namespace sextant
