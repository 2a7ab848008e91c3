// The plugin's learned model: libsextant_learned_model.so (costmodel/torch/LearnedModule.cpp)
// beside the plugin, loaded on first use and never unloaded (the models it makes live in it).
// See costmodel/LearnedModel.h for why the plugin does not link LibTorch itself.
#include "costmodel/LearnedModel.h"
#include "support/Errors.h"
#include "support/Files.h"

#include <dlfcn.h>

namespace sextant {

std::unique_ptr<CostModel> load_learned_model(const std::string &weights, int parallelism,
                                              double llc_bytes) {
    using Loader = CostModel *(*)(const char *, int, double, int, char *, size_t);
    static Loader loader = nullptr;
    if (!loader) {
        const std::string module =
            directory_of_binary_holding(reinterpret_cast<const void *>(&load_learned_model)) +
            SEXTANT_LEARNED_MODULE;
        void *h = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *why = dlerror();
            throw UserError("cannot load the learned cost model module '" + module +
                            "': " + (why ? why : "unknown error") +
                            ". Install it beside the plugin, or set "
                            "SEXTANT_COST_MODEL=analytical.");
        }
        loader = reinterpret_cast<Loader>(dlsym(h, "sextant_load_learned_model"));
        if (!loader)
            throw UserError("'" + module +
                            "' has no sextant_load_learned_model: not a Sextant "
                            "learned-model module of this version");
    }
    char error[2048] = {0};
    CostModel *m = loader(weights.c_str(), parallelism, llc_bytes, 1, error, sizeof(error));
    if (!m) throw UserError(error);
    return std::unique_ptr<CostModel>(m);
}

} // namespace sextant
