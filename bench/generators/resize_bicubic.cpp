// resize_bicubic: upscale an 8-bit RGB image by 7/4 with the Catmull-Rom cubic kernel, as a
// fixed-point polyphase resampler: a table of the four taps' weights for each of the 14 phases,
// each output column's and row's weights read from it, a vertical pass at the output's rows over
// the source's columns, then a horizontal pass. Held-out pipeline (session 61): no term or model
// was tuned on it. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

// The Catmull-Rom kernel (a = -1/2) at distance d.
Expr catmull_rom(Expr d) {
    Expr t = abs(d);
    Expr near = (1.5f * t - 2.5f) * t * t + 1.0f;
    Expr far = ((-0.5f * t + 2.5f) * t - 4.0f) * t + 2.0f;
    return select(t < 1.0f, near, select(t < 2.0f, far, 0.0f));
}

class ResizeBicubic : public Generator<ResizeBicubic> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c"), p("p"), t("t");
        Func in = BoundaryConditions::repeat_edge(input);

        // Output coordinate v sits at source position (v + 1/2) * 4/7 - 1/2 = (8v - 3) / 14:
        // its first tap is one left of the floor, its phase the remainder in fourteenths.
        auto first = [&](Expr v) { return (8 * v - 3) / 14 - 1; };
        auto phase = [&](Expr v) { return (8 * v - 3) % 14; };

        // The four taps' weights per phase in 2.14 fixed point. None of the 56 products lies
        // near a half, so rounding them is exact however the floats are evaluated; everything
        // after is integer arithmetic and every schedule gives the same bits.
        Func kernel("kernel");
        kernel(p, t) = cast<int16_t>(
            round(16384.0f * catmull_rom(cast<float>(p) / 14.0f + 1.0f - cast<float>(t))));

        // Per output column and row, its four weights (what the passes read densely).
        Func weight_x("weight_x"), weight_y("weight_y");
        weight_x(x, t) = cast<int32_t>(kernel(phase(x), t));
        weight_y(y, t) = cast<int32_t>(kernel(phase(y), t));

        // Vertical pass at the output's rows over the source's columns, keeping 6 fraction
        // bits; then the horizontal pass, rounded back to 8 bits.
        Func vertical("vertical");
        Expr vsum = 0;
        for (int j = 0; j < 4; j++) {
            vsum += weight_y(y, j) * cast<int32_t>(in(x, first(y) + j, c));
        }
        vertical(x, y, c) = cast<int16_t>((vsum + 128) >> 8);

        Func horizontal("horizontal");
        Expr hsum = 0;
        for (int i = 0; i < 4; i++) {
            hsum += weight_x(x, i) * cast<int32_t>(vertical(first(x) + i, y, c));
        }
        horizontal(x, y, c) = hsum;

        output(x, y, c) = cast<uint8_t>(clamp((horizontal(x, y, c) + (1 << 19)) >> 20, 0, 255));

        input.set_estimates({{0, 2048}, {0, 1536}, {0, 3}});
        output.set_estimates({{0, 3584}, {0, 2688}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(ResizeBicubic, resize_bicubic)
