// RandomWorkload: how a random pipeline becomes a SampleStore workload and back — its identity
// string, the options JSON that rebuilds it, and the machine string. Plain data and the
// planner only (no Halide objects are built here).
#pragma once

#include "dag/PipelineDag.h"
#include "random_pipelines/Options.h"
#include "random_pipelines/PipelineSpec.h"

#include <cstdint>
#include <string>

namespace sextant {

/** A random pipeline: a seed and the generator options it was planned with. */
struct RandomWorkload {
    uint64_t seed = 0;
    random_pipelines::RandomPipelineOptions options;
};

/** "random:seed=S:gen=V:h=HASH": V = `generator_version` (default kGeneratorVersion), HASH =
 * 16 hex digits of the plan's structural hash, so a changed generator (or options) gives a
 * different identity. Plans the pipeline (cheap; no Halide). */
std::string random_identity(const RandomWorkload &w,
                            int generator_version = random_pipelines::kGeneratorVersion);

/** True if `identity`, recorded with a workload's measurements, names the pipeline today's
 * generator builds for `w`: today's identity, or an older generator version's whose output
 * for this plan is unchanged (random_pipelines::built_alike_by_generator). */
bool same_pipeline_as_recorded(const RandomWorkload &w, const std::string &identity);

/** JSON with the seed, generator version and every generator option. */
std::string random_workload_json(const RandomWorkload &w);
/** Inverse of random_workload_json; throws UserError on a malformed string. */
RandomWorkload parse_random_workload_json(const std::string &json);

/** "cores=P;llc=BYTES;balance=B". */
std::string machine_string(const MachineInfo &m);
/** Inverse of machine_string (missing keys keep MachineInfo's defaults). */
MachineInfo parse_machine_string(const std::string &s);

} // namespace sextant
