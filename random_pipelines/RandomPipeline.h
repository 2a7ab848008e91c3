// RandomPipeline: the public entry point of the random pipeline generator. A seed and
// options give a valid Halide Pipeline with estimates on every output, input and scalar,
// ready for an autoscheduler, plus helpers to JIT-run it on deterministic inputs.
// Not thread-safe per object: runs bind buffers/values to its ImageParams and Params.
#pragma once

#include "random_pipelines/Options.h"
#include "random_pipelines/PipelineSpec.h"

#include <Halide.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sextant {
namespace random_pipelines {

/** One stage, for --describe and tests. */
struct StageInfo {
    std::string name; ///< Func name, e.g. "s3_stencil_2d"
    std::string kind; ///< kind_name() of the stage
    std::string type; ///< type_name() of its value
    int tuple_size = 1;
    std::vector<int> extents;           ///< nominal sizes (min 0)
    std::vector<std::string> producers; ///< stage names read
    std::vector<std::string> consumers; ///< stage names that read it
    bool is_output = false;
};

struct RandomPipeline {
    PipelineSpec spec;                          ///< the plan everything below was built from
    Halide::Pipeline pipeline;                  ///< outputs in spec.outputs order
    std::vector<Halide::Func> outputs;          ///< each has estimates on every dimension
    std::vector<Halide::ImageParam> inputs;     ///< spec.inputs order; each has estimates
    std::vector<Halide::Param<>> scalar_params; ///< Int32 or Float32; each has an estimate
    std::vector<double> scalar_values;          ///< the values runs bind (== the estimates)
    std::vector<StageInfo> stages;
    uint64_t structural_hash = 0; ///< structural_hash(spec)
};

/** Plans and builds the pipeline for seed. Deterministic for (seed, options). */
RandomPipeline make_random_pipeline(uint64_t seed,
                                    const RandomPipelineOptions &options = RandomPipelineOptions());

/** Builds a pipeline from an existing plan (e.g. one edited by a test). */
RandomPipeline make_random_pipeline_from_spec(const PipelineSpec &spec);

/** Buffer of input i at its estimated size, filled with a deterministic pattern of
 *  values in [lo, hi] of the input (depends only on spec.seed and i). */
Halide::Buffer<> make_input_buffer(const PipelineSpec &spec, int i);

/** Output buffers at their estimated sizes (uninitialised). */
std::vector<Halide::Buffer<>> make_output_buffers(const RandomPipeline &rp);

/** Wall-clock milliseconds of the phases of run_random_pipeline. */
struct RunTimings {
    double compile_ms = 0; ///< Pipeline::compile_jit
    double run_ms = 0;     ///< best of `repeats` realizations
};

/** Binds deterministic inputs and the scalar values, JIT-compiles for target with the
 *  default schedule (unless the pipeline was scheduled by the caller), realizes every
 *  output at its estimated size `repeats` times, and returns the outputs of the last run. */
std::vector<Halide::Buffer<>> run_random_pipeline(const RandomPipeline &rp,
                                                  const Halide::Target &target,
                                                  RunTimings *timings = nullptr, int repeats = 1);

/** The JIT target runs use by default: the host target without AVX512_SapphireRapids.
 *  Halide 14 reports Zen 4 (AMD EPYC) hosts as Sapphire Rapids, and code for that
 *  feature set dies with SIGILL there. */
Halide::Target default_run_target();

/** Deterministic 64-bit checksum of buffer contents (shape, type and bytes). */
uint64_t buffer_checksum(const Halide::Buffer<> &b);

} // namespace random_pipelines
} // namespace sextant
