// Autoscheduler: DAG -> search -> apply. The one function the plugin entry point, the tools and
// the tests call to schedule a pipeline.
#pragma once

#include "dag/PipelineDag.h"
#include "plugin/Params.h"
#include "search/BeamSearch.h"

#include <Halide.h>

#include <functional>
#include <memory>
#include <string>

namespace sextant {

struct AutoscheduleResult {
    std::string schedule_source;         // C++ for NAME.schedule.h
    std::string schedule_text;           // ScheduleText of the chosen schedule
    std::vector<std::string> constructs; // schedule_constructs() of the chosen schedule
    std::string featurization;           // JSON: per-stage features of the chosen schedule
    double predicted_seconds = 0;
    SearchStats stats;
    std::string cost_model;
    double featurize_seconds = 0; // featurizing candidates during the search
    double model_seconds = 0;     // in CostModel::predict_stages
    int64_t rows_featurized = 0;
};

/** Seams for tests that need the search to fail the way a bug deep in it would; the plugin
 * passes none. */
struct SearchHooks {
    /** Given the search's evaluator, returns one to use in its place (null: keep it). */
    std::function<std::unique_ptr<StateEvaluator>(StateEvaluator &)> wrap_evaluator;
};

/** Schedules the pipeline with outputs `outputs` and applies the schedule to its Funcs.
 * Throws UserError for pipelines or params it cannot handle, InternalError (with where the
 * search was) for anything else. */
AutoscheduleResult autoschedule(const std::vector<Halide::Internal::Function> &outputs,
                                const Halide::Target &target, const MachineInfo &machine,
                                const Params &params, const SearchHooks &hooks = {});

/** The body of Halide's autoscheduler callback: schedules `pipeline` with the SEXTANT_*
 * environment's params and fills `results`. Nothing escapes but a Halide::CompileError: a
 * UserError says what the user can fix, any other exception says "Sextant internal error". */
void autoschedule_for_halide(const Halide::Pipeline &pipeline, const Halide::Target &target,
                             const Halide::MachineParams &mp, Halide::AutoSchedulerResults *results,
                             const SearchHooks &hooks = {});

} // namespace sextant
