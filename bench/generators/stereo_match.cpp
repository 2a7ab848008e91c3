// stereo_match: block-matching stereo on a rectified 8-bit grey pair. For each of 48 candidate
// disparities d, the absolute difference of the left pixel and the right pixel d columns to its
// left, summed over a 7x7 window (a row sum, then a column sum: a cost volume of x, y and d);
// each pixel's disparity is the d of least cost (an argmin over d), scaled to 8 bits. The right
// image is read with its edge repeated. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class StereoMatch : public Generator<StereoMatch> {
public:
    static constexpr int kDisparities = 48;
    static constexpr int kRadius = 3;

    Input<Buffer<uint8_t>> left{"left", 2};
    Input<Buffer<uint8_t>> right{"right", 2};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y"), d("d");
        Func l = BoundaryConditions::repeat_edge(left);
        Func r = BoundaryConditions::repeat_edge(right);

        Func diff("diff");
        diff(x, y, d) = cast<uint16_t>(absd(l(x, y), r(x - d, y)));

        RDom k(-kRadius, 2 * kRadius + 1, "k");
        Func row_sum("row_sum"), cost("cost");
        row_sum(x, y, d) = sum(diff(x + k, y, d));
        cost(x, y, d) = sum(row_sum(x, y + k, d));

        RDom disparity(0, kDisparities, "disparity");
        Func best("best");
        best(x, y) = argmin(cost(x, y, disparity));

        output(x, y) = cast<uint8_t>(best(x, y)[0] * (255 / (kDisparities - 1)));

        left.set_estimates({{0, 1280}, {0, 720}});
        right.set_estimates({{0, 1280}, {0, 720}});
        output.set_estimates({{0, 1280}, {0, 720}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(StereoMatch, stereo_match)
