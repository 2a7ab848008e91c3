// ExpertScheduler: the Halide 14 plugin ("BenchExpert") that applies the hand-written expert
// schedules of bench/schedules/expert/ to a bench pipeline. It is not an autoscheduler: which
// pipeline it schedules comes from SEXTANT_BENCH_PIPELINE (scripts/bench.sh sets it), and a
// pipeline without an expert schedule is an error naming it, never a silent default schedule.
#include "Halide.h"

#include "camera_pipe.schedule.h"
#include "camera_pipe_planar.schedule.h"
#include "depthwise_separable_conv.schedule.h"
#include "harris.schedule.h"
#include "histogram_equalize.schedule.h"
#include "interpolate.schedule.h"
#include "local_laplacian.schedule.h"
#include "max_filter.schedule.h"
#include "nl_means.schedule.h"
#include "stencil_chain.schedule.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <string>

namespace {

using namespace Halide;

const std::map<std::string, std::function<void(const expert::Funcs &)>> &expert_schedules() {
    static const std::map<std::string, std::function<void(const expert::Funcs &)>> schedules = {
        {"camera_pipe", schedule_camera_pipe},
        {"camera_pipe_planar", schedule_camera_pipe_planar},
        {"depthwise_separable_conv", schedule_depthwise_separable_conv},
        {"harris", schedule_harris},
        {"histogram_equalize", schedule_histogram_equalize},
        {"interpolate", schedule_interpolate},
        {"local_laplacian", schedule_local_laplacian},
        {"max_filter", schedule_max_filter},
        {"nl_means", schedule_nl_means},
        {"stencil_chain", schedule_stencil_chain},
        {"stencil_chain_32", schedule_stencil_chain},
    };
    return schedules;
}

void apply_expert_schedule(const Pipeline &pipeline, const Target &target,
                           const MachineParams &params, AutoSchedulerResults *results) {
    const char *env = std::getenv("SEXTANT_BENCH_PIPELINE");
    const std::string name = env ? env : "";
    if (name.empty()) {
        throw CompileError("BenchExpert: set SEXTANT_BENCH_PIPELINE to the bench pipeline's name");
    }
    auto it = expert_schedules().find(name);
    if (it == expert_schedules().end()) {
        std::string known;
        for (const auto &entry : expert_schedules())
            known += " " + entry.first;
        throw CompileError("BenchExpert: no expert schedule for " + name + " (have:" + known + ")");
    }
    try {
        it->second(expert::Funcs(pipeline));
    } catch (const std::runtime_error &e) {
        throw CompileError("BenchExpert: " + name + ": " + e.what());
    }
    results->scheduler_name = "BenchExpert";
    results->target = target;
    results->machine_params_string = params.to_string();
    results->schedule_source = "// BenchExpert: bench/schedules/expert/" + name + ".schedule.h\n";
}

struct RegisterExpertScheduler {
    RegisterExpertScheduler() { Pipeline::add_autoscheduler("BenchExpert", apply_expert_schedule); }
} register_expert_scheduler;

} // namespace
