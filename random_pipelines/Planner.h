// Planner: seed + options -> PipelineSpec (plain data). All randomness of the generator
// lives here; it makes no Halide objects and is fast (use it for coverage statistics).
#pragma once

#include "random_pipelines/Options.h"
#include "random_pipelines/PipelineSpec.h"

namespace sextant {
namespace random_pipelines {

/** Plans a valid pipeline for this seed. Deterministic for (seed, options). */
PipelineSpec plan_random_pipeline(uint64_t seed, const RandomPipelineOptions &options);

} // namespace random_pipelines
} // namespace sextant
