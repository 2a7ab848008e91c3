// Plugin: the shared-library entry point. Loading libautoschedule_sextant.so registers the
// autoscheduler "Sextant" with Halide 14; everything else is in Autoscheduler.
//
// Nothing escapes this function but a Halide::CompileError, which Halide's generator driver
// prints and turns into a failed generator run: a UserError says what the user can fix; any
// other exception (an InternalError from a SEXTANT_ASSERT, std::bad_alloc, a standard
// library's logic_error, a Halide error while applying the schedule) is a Sextant bug and says
// "Sextant internal error" with where it happened.
#include "halide/HalideVersion.h"
#include "plugin/Autoscheduler.h"
#include "support/Errors.h"

namespace {

void sextant_autoschedule(const Halide::Pipeline &pipeline, const Halide::Target &target,
                          const Halide::MachineParams &mp, Halide::AutoSchedulerResults *results) {
    const std::string report = " (this is a bug in Sextant; SEXTANT_DEBUG=2 shows the search's "
                               "progress, SEXTANT_COST_MODEL=analytical avoids the learned model)";
    try {
        std::vector<Halide::Internal::Function> outputs;
        for (const Halide::Func &f : pipeline.outputs())
            outputs.push_back(f.function());
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
    } catch (const std::bad_alloc &) {
        throw Halide::CompileError("Sextant internal error: out of memory (std::bad_alloc)" +
                                   report);
    } catch (const std::exception &e) {
        throw Halide::CompileError(std::string("Sextant internal error: ") + e.what() + report);
    } catch (...) {
        throw Halide::CompileError("Sextant internal error: an unknown exception" + report);
    }
}

struct Register {
    Register() { Halide::Pipeline::add_autoscheduler("Sextant", sextant_autoschedule); }
} register_sextant;

} // namespace
