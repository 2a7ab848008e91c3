// edge_detect: Canny-style edges of an 8-bit RGB image. Grey level, a 5-tap binomial blur in
// each direction, Sobel gradients, their magnitude, non-maximum suppression across the
// gradient's direction (quantised to four sectors), then a double threshold in which a weak
// edge pixel survives when a strong one touches it (one step of hysteresis). Output: 255 on
// edges, 0 elsewhere. Held-out pipeline (session 61): no term or model was tuned on it. No
// schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class EdgeDetect : public Generator<EdgeDetect> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Input<float> low{"low", 20.0f, 0.0f, 1000.0f};
    Input<float> high{"high", 50.0f, 0.0f, 1000.0f};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        Func in = BoundaryConditions::repeat_edge(input);

        Func grey("grey");
        grey(x, y) = 0.299f * cast<float>(in(x, y, 0)) + 0.587f * cast<float>(in(x, y, 1)) +
                     0.114f * cast<float>(in(x, y, 2));

        Func blur_x("blur_x"), blur_y("blur_y");
        blur_x(x, y) = (grey(x - 2, y) + 4.0f * grey(x - 1, y) + 6.0f * grey(x, y) +
                        4.0f * grey(x + 1, y) + grey(x + 2, y)) *
                       (1.0f / 16.0f);
        blur_y(x, y) = (blur_x(x, y - 2) + 4.0f * blur_x(x, y - 1) + 6.0f * blur_x(x, y) +
                        4.0f * blur_x(x, y + 1) + blur_x(x, y + 2)) *
                       (1.0f / 16.0f);

        Func gx("gx"), gy("gy");
        Func s = blur_y;
        gx(x, y) = (s(x + 1, y - 1) + 2.0f * s(x + 1, y) + s(x + 1, y + 1)) -
                   (s(x - 1, y - 1) + 2.0f * s(x - 1, y) + s(x - 1, y + 1));
        gy(x, y) = (s(x - 1, y + 1) + 2.0f * s(x, y + 1) + s(x + 1, y + 1)) -
                   (s(x - 1, y - 1) + 2.0f * s(x, y - 1) + s(x + 1, y - 1));

        Func magnitude("magnitude");
        magnitude(x, y) = sqrt(gx(x, y) * gx(x, y) + gy(x, y) * gy(x, y));

        // Sector of the gradient: 0 horizontal, 1 vertical, 2 rising diagonal, 3 falling one
        // (tan 22.5 = 0.4142, tan 67.5 = 2.4142).
        Func sector("sector");
        Expr ax = abs(gx(x, y)), ay = abs(gy(x, y));
        Expr same_sign = (gx(x, y) >= 0.0f) == (gy(x, y) >= 0.0f);
        sector(x, y) = select(ay <= 0.4142f * ax, 0, ay >= 2.4142f * ax, 1, same_sign, 2, 3);

        Func thin("thin");
        Expr m = magnitude(x, y);
        Expr sec = sector(x, y);
        Expr before = select(sec == 0, magnitude(x - 1, y), sec == 1, magnitude(x, y - 1), sec == 2,
                             magnitude(x - 1, y - 1), magnitude(x + 1, y - 1));
        Expr after = select(sec == 0, magnitude(x + 1, y), sec == 1, magnitude(x, y + 1), sec == 2,
                            magnitude(x + 1, y + 1), magnitude(x - 1, y + 1));
        thin(x, y) = select(m >= before && m > after, m, 0.0f);

        // Strongest thinned magnitude among the eight neighbours and the pixel itself.
        Func strongest_row("strongest_row"), strongest("strongest");
        strongest_row(x, y) = max(max(thin(x - 1, y), thin(x, y)), thin(x + 1, y));
        strongest(x, y) =
            max(max(strongest_row(x, y - 1), strongest_row(x, y)), strongest_row(x, y + 1));

        Expr t = thin(x, y);
        Expr edge = t >= high || (t >= low && strongest(x, y) >= high);
        output(x, y) = select(edge, cast<uint8_t>(255), cast<uint8_t>(0));

        low.set_estimate(20.0f);
        high.set_estimate(50.0f);
        input.set_estimates({{0, 2560}, {0, 1600}, {0, 3}});
        output.set_estimates({{0, 2560}, {0, 1600}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(EdgeDetect, edge_detect)
