// RandomWorkload: how a random pipeline becomes a SampleStore workload and back — its identity
// string, the options JSON that rebuilds it, and the machine string. Plain data and the
// planner only (no Halide objects are built here).
#pragma once

#include "dag/PipelineDag.h"
#include "random_pipelines/Options.h"
#include "random_pipelines/PipelineSpec.h"
#include "sampler/SampleStore.h"

#include <cstdint>
#include <optional>
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

/** "cores=P;llc=BYTES;balance=B", then ";host=HOST" when `host` is not empty: the processor
 * the samples were timed on (host_description), recorded in every shard, so that one store's
 * workloads from two processors that share a target and machine params are two workloads and
 * training refuses to mix them (export_training). ';' and '=' in `host` become ','. */
std::string machine_string(const MachineInfo &m, const std::string &host = "");
/** Inverse of machine_string (missing keys keep MachineInfo's defaults; the host is not part
 * of MachineInfo: see machine_string_host). */
MachineInfo parse_machine_string(const std::string &s);
/** The host of a machine string ("" where none was recorded: stores before session 58). */
std::string machine_string_host(const std::string &s);
/** The machine string without its host: what a store before session 58 recorded. */
std::string machine_string_params(const std::string &s);
/** The processor a host names, without the caches host_description lists after the model
 * (", L1d 32K, L2 1024K, ..."): a VM guest that reports its caches one day and none the next
 * (the AMD EPYC VM, sessions 73 and 77) is one processor. */
std::string host_processor(const std::string &host);
/** `w`'s workload in `store`: the one of its (identity, target, machine), else, where w's
 * machine names a host, the one a store before session 58 recorded without it (so resuming or
 * judging against an older store of this machine finds what it holds). */
std::optional<WorkloadInfo> find_recorded_workload(SampleStore &store, const WorkloadInfo &w);

/** This machine's processor as the sampler records it: the model name from /proc/cpuinfo and
 * the sizes of cpu0's data caches from sysfs ("Intel(R) Xeon(R) Processor, L1d 48K, L2 2048K,
 * L3 307200K"); "unknown" where neither can be read. */
std::string host_description();

} // namespace sextant
