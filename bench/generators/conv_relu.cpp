// conv_relu: a ResNet-style 3x3 convolution layer, 64 -> 64 channels on 56x56 activations,
// batch 2, stride 1, with bias and ReLU. Layout: channel innermost, input(c, x, y, n) already
// padded by one pixel on each side. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class ConvRelu : public Generator<ConvRelu> {
public:
    Input<Buffer<float>> input{"input", 4};
    Input<Buffer<float>> filter{"filter", 4}; // (ci, kx, ky, co)
    Input<Buffer<float>> bias{"bias", 1};
    Output<Buffer<float>> output{"output", 4};

    void generate() {
        const int ci = 64, co = 64, w = 56, h = 56, n = 2;
        Var c("c"), x("x"), y("y"), b("b");
        RDom r(0, ci, 0, 3, 0, 3, "r");
        Func conv("conv");
        conv(c, x, y, b) = bias(c);
        conv(c, x, y, b) += filter(r.x, r.y, r.z, c) * input(r.x, x + r.y, y + r.z, b);
        output(c, x, y, b) = max(conv(c, x, y, b), 0.0f);

        input.set_estimates({{0, ci}, {0, w + 2}, {0, h + 2}, {0, n}});
        filter.set_estimates({{0, ci}, {0, 3}, {0, 3}, {0, co}});
        bias.set_estimates({{0, co}});
        output.set_estimates({{0, co}, {0, w}, {0, h}, {0, n}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(ConvRelu, conv_relu)
