// bilateral_grid: an edge-preserving bilateral filter via the bilateral grid (Chen, Paris and
// Durand 2007). The grayscale float image is splatted into a coarse 3-D grid (8x8 pixel cells,
// intensity bins of width r_sigma) of (sum, count) pairs, the grid is blurred with a 1-4-6-4-1
// kernel along each axis, and each pixel is read back by trilinear interpolation. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class BilateralGrid : public Generator<BilateralGrid> {
public:
    Input<Buffer<float>> input{"input", 2};
    Input<float> r_sigma{"r_sigma", 0.1f, 0.01f, 1.0f};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        const int s = 8; // spatial cell size in pixels
        Var x("x"), y("y"), z("z"), c("c");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func value("value");
        value(x, y) = clamp(clamped(x, y), 0.0f, 1.0f);

        // Splat: every pixel of the (s x s) cell around grid point (x, y) adds (v, 1) to the
        // bin of its intensity.
        Expr zmax = cast<int>(ceil(1.0f / r_sigma));
        RDom r(0, s, 0, s, "r");
        Expr v = value(x * s + r.x - s / 2, y * s + r.y - s / 2);
        Expr zi = clamp(cast<int>(v / r_sigma + 0.5f), 0, zmax);
        Func grid("grid");
        grid(x, y, z, c) = 0.0f;
        grid(x, y, zi, c) += select(c == 0, v, 1.0f);

        // Blur the grid separably: z, then x, then y.
        auto blur = [&](Func f, const std::string &name, int axis) {
            Func b(name);
            auto at = [&](int d) {
                return f(x + (axis == 0 ? d : 0), y + (axis == 1 ? d : 0), z + (axis == 2 ? d : 0),
                         c);
            };
            b(x, y, z, c) = at(-2) + 4.0f * at(-1) + 6.0f * at(0) + 4.0f * at(1) + at(2);
            return b;
        };
        Func blur_z = blur(grid, "blur_z", 2);
        Func blur_x = blur(blur_z, "blur_x", 0);
        Func blur_y = blur(blur_x, "blur_y", 1);

        // Slice: trilinear interpolation at (x / s, y / s, v / r_sigma).
        Expr p = value(x, y);
        Expr zf = p / r_sigma;
        Expr zb = clamp(cast<int>(floor(zf)), 0, zmax);
        Expr zw = zf - zb;
        Expr xb = x / s, yb = y / s;
        Expr xw = cast<float>(x % s) / s, yw = cast<float>(y % s) / s;
        Func interpolated("interpolated");
        auto lerp3 = [&](Expr ch) {
            auto g = [&](Expr dx, Expr dy, Expr dz) {
                return blur_y(xb + dx, yb + dy, zb + dz, ch);
            };
            Expr z0 = lerp(lerp(g(0, 0, 0), g(1, 0, 0), xw), lerp(g(0, 1, 0), g(1, 1, 0), xw), yw);
            Expr z1 = lerp(lerp(g(0, 0, 1), g(1, 0, 1), xw), lerp(g(0, 1, 1), g(1, 1, 1), xw), yw);
            return lerp(z0, z1, zw);
        };
        interpolated(x, y, c) = lerp3(c);
        output(x, y) = interpolated(x, y, 0) / max(interpolated(x, y, 1), 1e-6f);

        r_sigma.set_estimate(0.1f);
        input.set_estimates({{0, 1536}, {0, 2560}});
        output.set_estimates({{0, 1536}, {0, 2560}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(BilateralGrid, bilateral_grid)
