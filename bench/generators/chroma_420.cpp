// chroma_420: an 8-bit RGB image through 4:2:0 chroma subsampling and back, in fixed point.
// RGB to Y, Cb, Cr (JFIF's coefficients scaled by 256); Cb and Cr averaged over 2x2 blocks
// (half resolution in x and y: stride-2 reads); each upsampled back with the 3:1 tent, first
// along x, then along y (a read at x / 2 and its left or right neighbour, chosen by the
// coordinate's parity); then back to RGB, clamped to 8 bits. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class Chroma420 : public Generator<Chroma420> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint8_t>> output{"output", 3};

    Var x{"x"}, y{"y"}, c{"c"};

    /** Half-resolution `f` back to full resolution: 3/4 of the nearer sample, 1/4 of the next
     * one out, along x then y; `w` and `h` the half-resolution extents (edges repeated). */
    Func upsample(Func f, Expr w, Expr h, const std::string &name) {
        Func e = BoundaryConditions::repeat_edge(f, {{0, w}, {0, h}});
        Func along_x(name + "_x"), up(name + "_up");
        Expr nx = select(x % 2 == 0, x / 2 - 1, x / 2 + 1);
        along_x(x, y) = 3 * e(x / 2, y) + e(nx, y);
        Expr ny = select(y % 2 == 0, y / 2 - 1, y / 2 + 1);
        up(x, y) = (3 * along_x(x, y / 2) + along_x(x, ny) + 8) / 16;
        return up;
    }

    void generate() {
        Func in("in");
        in(x, y, c) = cast<int32_t>(input(x, y, c));
        Expr r = in(x, y, 0), g = in(x, y, 1), b = in(x, y, 2);
        Func luma("luma"), cb("cb"), cr("cr");
        luma(x, y) = (77 * r + 150 * g + 29 * b + 128) >> 8;
        cb(x, y) = ((-43 * r - 85 * g + 128 * b + 128) >> 8) + 128;
        cr(x, y) = ((128 * r - 107 * g - 21 * b + 128) >> 8) + 128;

        Func cb_half("cb_half"), cr_half("cr_half");
        auto half = [&](Func f) {
            return (f(2 * x, 2 * y) + f(2 * x + 1, 2 * y) + f(2 * x, 2 * y + 1) +
                    f(2 * x + 1, 2 * y + 1) + 2) /
                   4;
        };
        cb_half(x, y) = half(cb);
        cr_half(x, y) = half(cr);

        Expr w = input.dim(0).extent() / 2, h = input.dim(1).extent() / 2;
        Func cb_up = upsample(cb_half, w, h, "cb");
        Func cr_up = upsample(cr_half, w, h, "cr");

        Expr l = luma(x, y), u = cb_up(x, y) - 128, v = cr_up(x, y) - 128;
        Expr rgb = select(c == 0, l + ((359 * v + 128) >> 8), c == 1,
                          l - ((88 * u + 183 * v + 128) >> 8), l + ((454 * u + 128) >> 8));
        output(x, y, c) = cast<uint8_t>(clamp(rgb, 0, 255));

        input.set_estimates({{0, 2560}, {0, 1600}, {0, 3}});
        output.set_estimates({{0, 2560}, {0, 1600}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Chroma420, chroma_420)
