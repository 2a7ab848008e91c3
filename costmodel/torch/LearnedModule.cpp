// The learned cost model as a module of its own (libsextant_learned_model.so), which the plugin
// loads with dlopen only when SEXTANT_COST_MODEL=learned. Linking LibTorch into the plugin itself
// made every generator run pay for loading it (~0.7 s and ~170 MiB, even with the analytical
// model). One C entry point; errors come back as text, never as exceptions across the boundary.
#include "costmodel/TrainableCostModel.h"

#include <cstdio>
#include <exception>

extern "C" __attribute__((visibility("default"))) sextant::CostModel *
sextant_load_learned_model(const char *path, int parallelism, double llc_bytes, int threads,
                           char *error, size_t error_size) {
    try {
        return sextant::load_torch_cost_model(path, parallelism, llc_bytes, threads).release();
    } catch (const std::exception &e) {
        std::snprintf(error, error_size, "%s", e.what());
    } catch (...) {
        std::snprintf(error, error_size, "unknown error loading '%s'", path);
    }
    return nullptr;
}
