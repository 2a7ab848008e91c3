// Example pipeline for the README's main job: unsharp masking of an RGB image.
// Luminance -> separable 5-tap Gaussian blur -> sharpen each channel by the luminance detail.
// No schedule here: Sextant (or any autoscheduler) writes it.
#include "Halide.h"

namespace {

using namespace Halide;

class UnsharpMask : public Generator<UnsharpMask> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> amount{"amount"};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func gray("gray");
        gray(x, y) =
            0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);
        // Binomial weights 1 4 6 4 1 / 16.
        Func blur_y("blur_y"), blur_x("blur_x");
        blur_y(x, y) = (gray(x, y - 2) + 4.f * gray(x, y - 1) + 6.f * gray(x, y) +
                        4.f * gray(x, y + 1) + gray(x, y + 2)) /
                       16.f;
        blur_x(x, y) = (blur_y(x - 2, y) + 4.f * blur_y(x - 1, y) + 6.f * blur_y(x, y) +
                        4.f * blur_y(x + 1, y) + blur_y(x + 2, y)) /
                       16.f;
        Func detail("detail");
        detail(x, y) = gray(x, y) - blur_x(x, y);
        output(x, y, c) = clamp(input(x, y, c) + amount * detail(x, y), 0.f, 1.f);

        input.set_estimates({{0, 2560}, {0, 1536}, {0, 3}});
        amount.set_estimate(1.5f);
        output.set_estimates({{0, 2560}, {0, 1536}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(UnsharpMask, unsharp_mask)
