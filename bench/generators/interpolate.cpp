// interpolate: multi-scale (push-pull) interpolation of a sparse RGBA float image: alpha-
// premultiplied colour is reduced through a 10-level pyramid (2x2 box), then pulled back up,
// each level filling its holes (1 - alpha) from the upsampled coarser level; the result is
// un-premultiplied. Image 1536x2560. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class Interpolate : public Generator<Interpolate> {
public:
    GeneratorParam<int> levels{"levels", 10};
    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(input);
        const int n = levels;

        // Push: premultiplied colour (channels 0-2) and coverage (channel 3), box-reduced.
        std::vector<Func> down(n), up(n);
        down[0] = Func("down_0");
        Expr alpha = clamp(clamped(x, y, 3), 0.0f, 1.0f);
        down[0](x, y, c) = select(c < 3, clamped(x, y, c) * alpha, alpha);
        for (int l = 1; l < n; l++) {
            Func rows("down_x_" + std::to_string(l));
            rows(x, y, c) = down[l - 1](2 * x, y, c) + down[l - 1](2 * x + 1, y, c);
            down[l] = Func("down_" + std::to_string(l));
            down[l](x, y, c) = 0.25f * (rows(x, 2 * y, c) + rows(x, 2 * y + 1, c));
        }

        // Pull: each level keeps what it has and takes the rest from the level above.
        up[n - 1] = down[n - 1];
        for (int l = n - 2; l >= 0; l--) {
            Func cols("up_x_" + std::to_string(l));
            cols(x, y, c) = 0.5f * (up[l + 1](x / 2, y, c) + up[l + 1]((x + 1) / 2, y, c));
            Func coarse("coarse_" + std::to_string(l));
            coarse(x, y, c) = 0.5f * (cols(x, y / 2, c) + cols(x, (y + 1) / 2, c));
            up[l] = Func("up_" + std::to_string(l));
            up[l](x, y, c) = down[l](x, y, c) + (1.0f - down[l](x, y, 3)) * coarse(x, y, c);
        }

        Func normalised("normalised");
        normalised(x, y, c) = up[0](x, y, c) / max(up[0](x, y, 3), 1e-6f);
        output(x, y, c) = normalised(x, y, c);

        input.set_estimates({{0, 1536}, {0, 2560}, {0, 4}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Interpolate, interpolate)
