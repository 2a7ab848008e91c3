// bloom: the glow around bright areas of an HDR RGB float image. The light above a threshold is
// blurred at five scales: a pyramid built by a 5-tap binomial blur and halving in each
// direction, then collapsed by bilinear upsampling and adding each finer level. The glow is
// added back to the image, which is tone-mapped (x / (1 + x)). Held-out pipeline (session 61): no
// term or model was tuned on it. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class Bloom : public Generator<Bloom> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> threshold{"threshold", 1.0f, 0.0f, 100.0f};
    Input<float> strength{"strength", 0.5f, 0.0f, 10.0f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c");
        const int levels = 5;
        Func in = BoundaryConditions::repeat_edge(input);

        std::vector<Func> down;
        down.emplace_back("bright");
        down[0](x, y, c) = max(in(x, y, c) - threshold, 0.0f);
        for (int l = 1; l < levels; l++) {
            const std::string n = std::to_string(l);
            Func f = down[l - 1];
            Func dx("down_x_" + n), d("down_" + n);
            dx(x, y, c) = (f(2 * x - 2, y, c) + 4.0f * f(2 * x - 1, y, c) + 6.0f * f(2 * x, y, c) +
                           4.0f * f(2 * x + 1, y, c) + f(2 * x + 2, y, c)) *
                          (1.0f / 16.0f);
            d(x, y, c) =
                (dx(x, 2 * y - 2, c) + 4.0f * dx(x, 2 * y - 1, c) + 6.0f * dx(x, 2 * y, c) +
                 4.0f * dx(x, 2 * y + 1, c) + dx(x, 2 * y + 2, c)) *
                (1.0f / 16.0f);
            down.push_back(d);
        }

        // Collapse: up[l] = down[l] + up[l + 1] upsampled (bilinear, pixel centres aligned).
        Func up = down[levels - 1];
        for (int l = levels - 2; l >= 1; l--) {
            const std::string n = std::to_string(l);
            Func ux("up_x_" + n), uy("up_y_" + n), sum("up_" + n);
            Expr xo = select(x % 2 == 0, -1, 1);
            ux(x, y, c) = 0.75f * up(x / 2, y, c) + 0.25f * up(x / 2 + xo, y, c);
            Expr yo = select(y % 2 == 0, -1, 1);
            uy(x, y, c) = 0.75f * ux(x, y / 2, c) + 0.25f * ux(x, y / 2 + yo, c);
            sum(x, y, c) = down[l](x, y, c) + uy(x, y, c);
            up = sum;
        }
        Func glow_x("glow_x"), glow("glow");
        Expr xo = select(x % 2 == 0, -1, 1);
        glow_x(x, y, c) = 0.75f * up(x / 2, y, c) + 0.25f * up(x / 2 + xo, y, c);
        Expr yo = select(y % 2 == 0, -1, 1);
        glow(x, y, c) = 0.75f * glow_x(x, y / 2, c) + 0.25f * glow_x(x, y / 2 + yo, c);

        Expr v = input(x, y, c) + strength * glow(x, y, c);
        output(x, y, c) = v / (1.0f + v);

        threshold.set_estimate(1.0f);
        strength.set_estimate(0.5f);
        input.set_estimates({{0, 2560}, {0, 1600}, {0, 3}});
        output.set_estimates({{0, 2560}, {0, 1600}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Bloom, bloom)
