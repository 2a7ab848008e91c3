// DagBuilder: turns a Halide pipeline into a PipelineDag (plain data). This is where Halide's
// bounds inference, the IR walk for op histograms and loads, and the estimate checks live.
// It throws UserError (naming the Func, Param or input and dimension) for pipelines that
// cannot be scheduled; it never schedules anything itself.
#pragma once

#include "dag/PipelineDag.h"
#include "support/Errors.h"

#include <Halide.h>

namespace sextant {

/** Builds the DAG of `outputs` for `target`; `machine` supplies parallelism and cache size
 * (vector width is filled in from the target). */
PipelineDag build_pipeline_dag(const std::vector<Halide::Internal::Function> &outputs,
                               const Halide::Target &target, MachineInfo machine);

} // namespace sextant
