// harris: the Harris corner response det(M) - k trace(M)^2 of the structure tensor M
// (Sobel gradients of the luminance, summed over a 3x3 window) of an RGB float image.
// Values are normalised to stay O(1). No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class Harris : public Generator<Harris> {
public:
    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func gray("gray");
        gray(x, y) =
            0.299f * clamped(x, y, 0) + 0.587f * clamped(x, y, 1) + 0.114f * clamped(x, y, 2);

        // Sobel operators, scaled by 1/8 so a unit step gives a unit gradient.
        Func gx("gx"), gy("gy");
        gx(x, y) = ((gray(x + 1, y - 1) + 2.0f * gray(x + 1, y) + gray(x + 1, y + 1)) -
                    (gray(x - 1, y - 1) + 2.0f * gray(x - 1, y) + gray(x - 1, y + 1))) *
                   0.125f;
        gy(x, y) = ((gray(x - 1, y + 1) + 2.0f * gray(x, y + 1) + gray(x + 1, y + 1)) -
                    (gray(x - 1, y - 1) + 2.0f * gray(x, y - 1) + gray(x + 1, y - 1))) *
                   0.125f;

        Func ixx("ixx"), iyy("iyy"), ixy("ixy");
        ixx(x, y) = gx(x, y) * gx(x, y);
        iyy(x, y) = gy(x, y) * gy(x, y);
        ixy(x, y) = gx(x, y) * gy(x, y);

        // Mean over a 3x3 window.
        auto window = [&](Func f, const std::string &name) {
            Func w(name);
            Expr s = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    s += f(x + dx, y + dy);
                }
            }
            w(x, y) = s * (1.0f / 9.0f);
            return w;
        };
        Func sxx = window(ixx, "sxx"), syy = window(iyy, "syy"), sxy = window(ixy, "sxy");

        const float k = 0.04f;
        Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
        Expr trace = sxx(x, y) + syy(x, y);
        output(x, y) = det - k * trace * trace;

        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Harris, harris)
