// depthwise_separable_conv: a MobileNet-style block: 3x3 depthwise convolution (32 channels,
// zero padding) + ReLU, then a 1x1 pointwise convolution 32 -> 64 channels + ReLU, on 112x112
// activations, batch 4. Layout: channel innermost, (c, x, y, n). No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class DepthwiseSeparableConv : public Generator<DepthwiseSeparableConv> {
public:
    Input<Buffer<float>> input{"input", 4};
    Input<Buffer<float>> depth_filter{"depth_filter", 3}; // (c, kx, ky)
    Input<Buffer<float>> point_filter{"point_filter", 2}; // (ci, co)
    Input<Buffer<float>> bias{"bias", 1};                 // (co)
    Output<Buffer<float>> output{"output", 4};

    void generate() {
        const int ci = 32, co = 64, w = 112, h = 112, n = 4;
        Var c("c"), x("x"), y("y"), b("b");
        Func padded = BoundaryConditions::constant_exterior(input, 0.0f);

        RDom k(0, 3, 0, 3, "k");
        Func depthwise("depthwise");
        depthwise(c, x, y, b) = 0.0f;
        depthwise(c, x, y, b) += depth_filter(c, k.x, k.y) * padded(c, x + k.x - 1, y + k.y - 1, b);
        Func depth_relu("depth_relu");
        depth_relu(c, x, y, b) = max(depthwise(c, x, y, b), 0.0f);

        RDom r(0, ci, "r");
        Func pointwise("pointwise");
        pointwise(c, x, y, b) = bias(c);
        pointwise(c, x, y, b) += point_filter(r, c) * depth_relu(r, x, y, b);
        output(c, x, y, b) = max(pointwise(c, x, y, b), 0.0f);

        input.set_estimates({{0, ci}, {0, w}, {0, h}, {0, n}});
        depth_filter.set_estimates({{0, ci}, {0, 3}, {0, 3}});
        point_filter.set_estimates({{0, ci}, {0, co}});
        bias.set_estimates({{0, co}});
        output.set_estimates({{0, co}, {0, w}, {0, h}, {0, n}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(DepthwiseSeparableConv, depthwise_separable_conv)
