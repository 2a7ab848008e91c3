// iir_blur: a first-order recursive (exponential) low-pass filter run causally and then
// anti-causally down the columns, then along the rows, of an RGB float image. Each pass is a
// scan written as an RDom update over one dimension. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class IirBlur : public Generator<IirBlur> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> alpha{"alpha", 0.1f, 0.0f, 1.0f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c");
        Expr width = input.dim(0).extent();
        Expr height = input.dim(1).extent();
        Expr a = 1.0f - alpha;

        // Down the columns: y[n] = alpha x[n] + (1 - alpha) y[n - 1], then the same upwards.
        Func down("down");
        down(x, y, c) = input(x, y, c);
        RDom ry(1, height - 1, "ry");
        down(x, ry, c) = alpha * down(x, ry, c) + a * down(x, ry - 1, c);
        Func up("up");
        up(x, y, c) = down(x, y, c);
        RDom ru(0, height - 1, "ru");
        Expr yr = height - 2 - ru;
        up(x, yr, c) = alpha * up(x, yr, c) + a * up(x, yr + 1, c);

        // Along the rows, left to right then right to left.
        Func right("right");
        right(x, y, c) = up(x, y, c);
        RDom rx(1, width - 1, "rx");
        right(rx, y, c) = alpha * right(rx, y, c) + a * right(rx - 1, y, c);
        Func left("left");
        left(x, y, c) = right(x, y, c);
        RDom rl(0, width - 1, "rl");
        Expr xr = width - 2 - rl;
        left(xr, y, c) = alpha * left(xr, y, c) + a * left(xr + 1, y, c);

        output(x, y, c) = left(x, y, c);

        alpha.set_estimate(0.1f);
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(IirBlur, iir_blur)
