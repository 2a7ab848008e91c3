// Plugin: the shared-library entry point. Loading libautoschedule_sextant.so registers the
// autoscheduler "Sextant" with Halide 14; everything else is in Autoscheduler.
#include "plugin/Autoscheduler.h"
#include "plugin/dag/Errors.h"
#include "plugin/halide/HalideVersion.h"

namespace {

void sextant_autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                          const Halide::MachineParams &mp, Halide::AutoSchedulerResults *results) {
    std::vector<Halide::Internal::Function> outputs;
    for (const Halide::Func &f : pipeline.outputs()) outputs.push_back(f.function());
    try {
        sextant::Params params = sextant::Params::from_environment();
        sextant::MachineInfo machine = sextant::machine_info(mp);
        sextant::AutoscheduleResult r = sextant::autoschedule(outputs, target, machine, params);
        results->scheduler_name = "Sextant";
        results->target = target;
        results->machine_params_string = mp.to_string();
        results->schedule_source = r.schedule_source;
        results->featurization.assign(r.featurization.begin(), r.featurization.end());
    } catch (const sextant::UserError &e) {
        // Halide's generator driver reports CompileErrors and exits non-zero.
        throw Halide::CompileError(std::string("Sextant: ") + e.what());
    }
}

struct Register {
    Register() { Halide::Pipeline::add_autoscheduler("Sextant", sextant_autoschedule); }
} register_sextant;

} // namespace
