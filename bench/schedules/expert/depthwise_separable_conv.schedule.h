// Expert schedule of depthwise_separable_conv (bench/generators/depthwise_separable_conv.cpp):
// a 3x3 depthwise convolution (32 channels) and ReLU, then a 1x1 convolution to 64 channels,
// bias and ReLU; channels innermost, 112x112, batch 4.
//
// One output row (all x, all 64 channels) per parallel task, its depthwise rows computed inside
// it. The 1x1 convolution keeps a register block of 4 x positions by 4 vectors of 16 output
// channels (16 accumulators) across the whole 32-channel reduction; the depthwise stage
// vectorizes its 32 channels, the 3x3 taps unrolled.
#pragma once

#include "Expert.h"

inline void schedule_depthwise_separable_conv(const expert::Funcs &f) {
    using namespace Halide;
    Var c("c"), x("x"), y("y"), b("b"), t("t"), co("co"), ci("ci"), xo("xo"), xi("xi");
    Func output = f("output");
    output.bound(c, 0, 64).fuse(y, b, t).parallel(t).split(c, co, ci, 16).vectorize(ci).unroll(co);
    Func pointwise = f("pointwise");
    pointwise.compute_at(output, t).vectorize(c, 16);
    RVar r = pointwise.rvars(0)[0];
    pointwise.update()
        .split(x, xo, xi, 4, TailStrategy::GuardWithIf)
        .split(c, co, ci, 16)
        .reorder(ci, co, xi, r, xo)
        .vectorize(ci)
        .unroll(co)
        .unroll(xi);
    Func depthwise = f("depthwise");
    depthwise.compute_at(output, t).vectorize(c, 16);
    std::vector<RVar> k = depthwise.rvars(0);
    depthwise.update().reorder(c, k[0], k[1], x).vectorize(c, 16).unroll(k[0]).unroll(k[1]);
}
