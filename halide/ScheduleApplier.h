// ScheduleApplier: applies a schedule's Directives to the pipeline's Funcs, and prints the same
// Directives as C++ (the .schedule.h that `-e schedule` writes). Both walk one Directive list.
#pragma once

#include "search/Directives.h"

#include <Halide.h>

#include <map>
#include <string>

namespace sextant {

/** Every Func reachable from `outputs`, by name. */
std::map<std::string, Halide::Func>
funcs_by_name(const std::vector<Halide::Internal::Function> &outputs);

void apply_directives(const PipelineDag &dag, const std::vector<Directive> &directives,
                      std::map<std::string, Halide::Func> &funcs);

/** C++ statements that re-apply the schedule: the body Halide places inside
 * `inline void apply_schedule_NAME(::Halide::Pipeline pipeline, ::Halide::Target target)` of
 * NAME.schedule.h. The ScheduleText goes in a comment so the file documents the decisions. */
std::string schedule_source(const PipelineDag &dag, const std::vector<Directive> &directives,
                            const std::string &schedule_text, const std::string &header_comment);

} // namespace sextant
