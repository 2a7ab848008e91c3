// wavelet_denoise: wavelet shrinkage of a float RGB image. A two-level 2-D Haar transform (each
// level averages and differences pairs of pixels along x, then pairs of rows, leaving a
// half-size approximation and three detail bands), the detail coefficients soft-thresholded
// (shrunk towards zero by a threshold, zeroed inside it; a finer threshold at the first level),
// then the inverse transform (each output pixel is its pair's average plus or minus the
// difference, chosen by the parity of its coordinate). Stride-2 reads going down, reads at
// x / 2 with a parity select going up. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

Expr shrink(Expr d, Expr t) {
    return select(d > t, d - t, select(d < -t, d + t, 0.0f));
}

class WaveletDenoise : public Generator<WaveletDenoise> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> threshold{"threshold"};
    Output<Buffer<float>> output{"output", 3};

    Var x{"x"}, y{"y"}, c{"c"};

    /** One level forward: the approximation and the three detail bands of `in`, shrunk by `t`. */
    struct Bands {
        Func ll, lh, hl, hh;
    };
    Bands forward(Func in, Expr t, const std::string &level) {
        Func lo("lo_x" + level), hi("hi_x" + level);
        lo(x, y, c) = (in(2 * x, y, c) + in(2 * x + 1, y, c)) * 0.5f;
        hi(x, y, c) = (in(2 * x, y, c) - in(2 * x + 1, y, c)) * 0.5f;
        Bands b{Func("ll" + level), Func("lh" + level), Func("hl" + level), Func("hh" + level)};
        b.ll(x, y, c) = (lo(x, 2 * y, c) + lo(x, 2 * y + 1, c)) * 0.5f;
        b.lh(x, y, c) = shrink((lo(x, 2 * y, c) - lo(x, 2 * y + 1, c)) * 0.5f, t);
        b.hl(x, y, c) = shrink((hi(x, 2 * y, c) + hi(x, 2 * y + 1, c)) * 0.5f, t);
        b.hh(x, y, c) = shrink((hi(x, 2 * y, c) - hi(x, 2 * y + 1, c)) * 0.5f, t);
        return b;
    }

    /** One level inverse: the full-size image from an approximation and the detail bands. */
    Func inverse(Func ll, const Bands &b, const std::string &level) {
        // Rows first: each pair of rows is the band's value plus or minus the detail.
        Func lo("inv_lo" + level), hi("inv_hi" + level);
        Expr even_y = y % 2 == 0;
        lo(x, y, c) = select(even_y, ll(x, y / 2, c) + b.lh(x, y / 2, c),
                             ll(x, y / 2, c) - b.lh(x, y / 2, c));
        hi(x, y, c) = select(even_y, b.hl(x, y / 2, c) + b.hh(x, y / 2, c),
                             b.hl(x, y / 2, c) - b.hh(x, y / 2, c));
        Func out("inv" + level);
        out(x, y, c) = select(x % 2 == 0, lo(x / 2, y, c) + hi(x / 2, y, c),
                              lo(x / 2, y, c) - hi(x / 2, y, c));
        return out;
    }

    void generate() {
        Func in("in");
        in(x, y, c) = input(x, y, c);
        Bands one = forward(in, threshold * 0.5f, "_1");
        Bands two = forward(one.ll, threshold, "_2");
        Func level_1 = inverse(two.ll, two, "_2"); // the first level's approximation, denoised
        Func restored = inverse(level_1, one, "_1");
        output(x, y, c) = clamp(restored(x, y, c), 0.0f, 1.0f);

        input.set_estimates({{0, 2048}, {0, 1536}, {0, 3}});
        threshold.set_estimate(0.05f);
        output.set_estimates({{0, 2048}, {0, 1536}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(WaveletDenoise, wavelet_denoise)
