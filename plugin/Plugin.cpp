// Plugin: the shared-library entry point. Loading libautoschedule_sextant.so registers the
// autoscheduler "Sextant" with Halide 14; autoschedule_for_halide (Autoscheduler.h) does the
// rest and turns every error into a Halide::CompileError, which Halide's generator driver
// prints and turns into a failed generator run.
#include "plugin/Autoscheduler.h"

namespace {

struct Register {
    Register() {
        Halide::Pipeline::add_autoscheduler(
            "Sextant",
            [](const Halide::Pipeline &p, const Halide::Target &t, const Halide::MachineParams &mp,
               Halide::AutoSchedulerResults *r) { sextant::autoschedule_for_halide(p, t, mp, r); });
    }
} register_sextant;

} // namespace
