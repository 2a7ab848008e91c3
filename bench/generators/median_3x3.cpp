// median_3x3: 3x3 median filter of a 16-bit RGB image (salt-and-pepper denoising). Each column
// of three is sorted first (low, middle, high); the median of the nine is then the median of
// the largest low, the median middle and the smallest high over three neighbouring columns.
// Min/max arithmetic only. Held-out pipeline (session 61): no term or model was tuned on it.
// No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

Expr median3(Expr a, Expr b, Expr c) {
    return max(min(a, b), min(max(a, b), c));
}

class Median3x3 : public Generator<Median3x3> {
public:
    Input<Buffer<uint16_t>> input{"input", 3};
    Output<Buffer<uint16_t>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c");
        Func in = BoundaryConditions::mirror_interior(input);

        // The column (x, y-1 .. y+1) sorted.
        Func low("low"), mid("mid"), high("high");
        Expr a = in(x, y - 1, c), b = in(x, y, c), d = in(x, y + 1, c);
        low(x, y, c) = min(min(a, b), d);
        mid(x, y, c) = median3(a, b, d);
        high(x, y, c) = max(max(a, b), d);

        Func max_low("max_low"), mid_mid("mid_mid"), min_high("min_high");
        max_low(x, y, c) = max(max(low(x - 1, y, c), low(x, y, c)), low(x + 1, y, c));
        mid_mid(x, y, c) = median3(mid(x - 1, y, c), mid(x, y, c), mid(x + 1, y, c));
        min_high(x, y, c) = min(min(high(x - 1, y, c), high(x, y, c)), high(x + 1, y, c));

        output(x, y, c) = median3(max_low(x, y, c), mid_mid(x, y, c), min_high(x, y, c));

        input.set_estimates({{0, 4096}, {0, 3072}, {0, 3}});
        output.set_estimates({{0, 4096}, {0, 3072}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Median3x3, median_3x3)
