// unsharp_mask: sharpen an RGB float image by adding back the difference between its luminance
// and a Gaussian-blurred luminance (radius 3, sigma a runtime parameter). No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class UnsharpMask : public Generator<UnsharpMask> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> sigma{"sigma", 1.5f, 0.5f, 3.0f};
    Input<float> amount{"amount", 1.0f, 0.0f, 4.0f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c"), i("i");
        const int radius = 3;

        // Normalised 1-D Gaussian taps, one per offset in [-radius, radius].
        Func tap("tap");
        Expr d = cast<float>(i);
        tap(i) = exp(-d * d / (2.0f * sigma * sigma));
        RDom t(-radius, 2 * radius + 1, "t");
        Func tap_sum("tap_sum");
        tap_sum() = 0.0f;
        tap_sum() += tap(t);

        Func clamped = BoundaryConditions::repeat_edge(input);
        Func luma("luma");
        luma(x, y) =
            0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);

        Func blur_x("blur_x");
        Expr sx = 0.0f;
        for (int k = -radius; k <= radius; k++) {
            sx += tap(k) * luma(x + k, y);
        }
        blur_x(x, y) = sx / tap_sum();
        Func blur_y("blur_y");
        Expr sy = 0.0f;
        for (int k = -radius; k <= radius; k++) {
            sy += tap(k) * blur_x(x, y + k);
        }
        blur_y(x, y) = sy / tap_sum();

        Func ratio("ratio");
        Expr l = luma(x, y);
        ratio(x, y) = (l + amount * (l - blur_y(x, y))) / max(l, 1e-3f);
        output(x, y, c) = clamp(clamped(x, y, c) * ratio(x, y), 0.0f, 1.0f);

        sigma.set_estimate(1.5f);
        amount.set_estimate(1.0f);
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(UnsharpMask, unsharp_mask)
