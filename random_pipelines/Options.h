// RandomPipelineOptions: every knob of the random pipeline generator, with defaults.
// Plain data; read by the planner (Planner.h). Same seed + same options -> same pipeline.
#pragma once

#include <cstdint>
#include <vector>

namespace sextant {
namespace random_pipelines {

struct RandomPipelineOptions {
    /** Fewest stages (Funcs the planner creates, input boundary stages included) to aim for.
     *  Pruning of surplus outputs may leave slightly fewer; never fewer than 1. */
    int min_stages = 2;
    /** Most stages; a Separable2D stage counts once though it makes two Funcs. */
    int max_stages = 12;
    /** Most pipeline outputs (1..3); every output is a non-Tuple stage with no consumers. */
    int max_outputs = 3;
    /** Most data inputs (ImageParams holding images); weights/table inputs come extra. */
    int max_inputs = 3;
    /** Most dimensions of any stage or input (1..4). */
    int max_dims = 4;
    /** Range of spatial extents of inputs and outputs (elements per dimension). */
    int min_extent = 64;
    int max_extent = 2048;
    /** Range of channel-like extents (3rd/4th input dims, broadcasts, conv outputs). */
    int min_channels = 3;
    int max_channels = 16;
    /** Most elements of one data input. */
    int64_t max_input_points = int64_t(1) << 20;
    /** Bound on the estimated work of one run under Halide's default schedule, in abstract
     *  ops (about 1 ns each on a 2-core x86 host, unvectorised). Kinds that would exceed it
     *  are skipped. The default aims at 0.1..100 ms per run. */
    double max_work = 6e7;
    /** Bound on the size of any one stage's expression after Halide inlines its pure
     *  producers (limits JIT compile time). */
    double max_tree_size = 1500;
    /** Relative frequency of each StageKind (index = StageKind value), or empty for the
     *  built-in defaults. InputBoundary's weight is ignored (one per input). */
    std::vector<double> kind_weights;
    /** For fuzzing only (sextant-fuzz --unguarded-inputs; never in sampled workloads): an input
     *  boundary with a repeat-edge, constant-exterior or clamp condition reads its input as
     *  is (`src(x) = in(x)`, then the condition around `src`) instead of through a clamp to
     *  the image. That is the shape of bench bilateral_guided_upsampling's `lambda_0`: computed
     *  inside a consumer's loops, its region shrinks at the image's edge and a shifted tile
     *  reads the input before its start, which the search's rules must keep out. (Halide 14
     *  over-estimates the region read through mirror and repeat-image conditions, so those
     *  keep the clamp.) Plans differ only in those stages' `ints`. */
    bool unguarded_inputs = false;
};

} // namespace random_pipelines
} // namespace sextant
