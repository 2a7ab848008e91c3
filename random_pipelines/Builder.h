// Builder: PipelineSpec -> Halide Funcs. Shared by the JIT path (ImageParams, Param<>)
// and the Halide Generator (Input<Buffer<>>, Input<int32_t>/Input<float>): the caller
// makes the inputs and scalars, the builder makes every stage Func and returns the
// outputs. It consumes no randomness, applies no schedule and sets no estimates.
#pragma once

#include "random_pipelines/PipelineSpec.h"

#include <Halide.h>

#include <vector>

namespace sextant {
namespace random_pipelines {

/** Halide type of an element type. */
Halide::Type halide_type(ElemType t);

/** Builds the stages. inputs[i] is spec.inputs[i] (any Func-like of that type and
 *  dimensionality, min 0); scalars[i] is spec.scalars[i] (Int32 or Float32 Expr).
 *  Returns one Func per spec.outputs entry, named after its stage. */
std::vector<Halide::Func> build_pipeline_funcs(const PipelineSpec &spec,
                                               const std::vector<Halide::Func> &inputs,
                                               const std::vector<Halide::Expr> &scalars);

} // namespace random_pipelines
} // namespace sextant
