// histogram_equalize: global histogram equalisation of an 8-bit RGB image. The luma histogram
// (256 bins, a scattering RDom reduction), its cumulative sum (a scan), and the classic
// (cdf - cdf_min) / (N - cdf_min) mapping; each colour is scaled by new/old luma. Integer
// arithmetic throughout. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class HistogramEqualize : public Generator<HistogramEqualize> {
public:
    Input<Buffer<uint8_t>> input{"input", 3};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c"), i("i");
        Func luma("luma");
        luma(x, y) = cast<uint8_t>((77 * cast<int32_t>(input(x, y, 0)) +
                                    150 * cast<int32_t>(input(x, y, 1)) +
                                    29 * cast<int32_t>(input(x, y, 2)) + 128) >>
                                   8);

        Func hist("hist");
        hist(i) = 0;
        RDom r(0, input.dim(0).extent(), 0, input.dim(1).extent(), "r");
        hist(cast<int32_t>(luma(r.x + input.dim(0).min(), r.y + input.dim(1).min()))) += 1;

        Func cdf("cdf");
        cdf(i) = hist(i);
        RDom b(1, 255, "b");
        cdf(b) = cdf(b - 1) + hist(b);

        Expr total = input.dim(0).extent() * input.dim(1).extent();
        RDom all(0, 256, "all");
        Func cdf_min("cdf_min");
        cdf_min() = minimum(select(cdf(all) > 0, cdf(all), total));

        Func lut("lut");
        Expr num = cast<int64_t>(cdf(i) - cdf_min()) * 255;
        Expr den = cast<int64_t>(max(total - cdf_min(), 1));
        lut(i) = cast<int32_t>(clamp((num + den / 2) / den, 0, 255));

        Expr old_l = cast<int32_t>(luma(x, y));
        Expr new_l = lut(old_l);
        Expr v = (cast<int32_t>(input(x, y, c)) * new_l + old_l / 2) / max(old_l, 1);
        output(x, y, c) = cast<uint8_t>(clamp(select(old_l == 0, new_l, v), 0, 255));

        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(HistogramEqualize, histogram_equalize)
