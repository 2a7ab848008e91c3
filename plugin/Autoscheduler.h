// Autoscheduler: DAG -> search -> apply. The one function the plugin entry point, the tools and
// the tests call to schedule a pipeline.
#pragma once

#include "dag/PipelineDag.h"
#include "plugin/Params.h"
#include "search/BeamSearch.h"

#include <Halide.h>

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

/** Schedules the pipeline with outputs `outputs` and applies the schedule to its Funcs.
 * Throws UserError for pipelines or params it cannot handle. */
AutoscheduleResult autoschedule(const std::vector<Halide::Internal::Function> &outputs,
                                const Halide::Target &target, const MachineInfo &machine,
                                const Params &params);

} // namespace sextant
