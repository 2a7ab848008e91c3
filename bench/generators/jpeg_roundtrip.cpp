// jpeg_roundtrip: what JPEG compression does to a grey float image, without the entropy coder.
// Per 8x8 block: a 2-D DCT-II (rows, then columns, each a sum over the block's 8 samples), the
// coefficients quantised by the standard luminance table scaled by a quality factor and
// dequantised, then the inverse DCT (columns, then rows). Held-out pipeline (session 61): no term
// or model was tuned on it. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class JpegRoundtrip : public Generator<JpegRoundtrip> {
public:
    Input<Buffer<float>> input{"input", 2};
    Input<float> quality_scale{"quality_scale", 1.0f, 0.1f, 10.0f};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Var x("x"), y("y"), k("k"), n("n"), u("u"), v("v");
        Func in = BoundaryConditions::repeat_edge(input);

        // basis(k, n) = a(k) cos((2n + 1) k pi / 16): row k of the orthonormal DCT-II matrix.
        Func basis("basis");
        Expr alpha = select(k == 0, std::sqrt(1.0f / 8.0f), std::sqrt(2.0f / 8.0f));
        basis(k, n) = alpha * cos(cast<float>((2 * n + 1) * k) * float(M_PI / 16.0));

        // The standard JPEG luminance quantisation table (ITU T.81, Annex K).
        const int table[64] = {16,  11,  10,  16,  24, 40, 51,  61,  12,  12,  14,  19,  26,
                               58,  60,  55,  14,  13, 16, 24,  40,  57,  69,  56,  14,  17,
                               22,  29,  51,  87,  80, 62, 18,  22,  37,  56,  68,  109, 103,
                               77,  24,  35,  55,  64, 81, 104, 113, 92,  49,  64,  78,  87,
                               103, 121, 120, 101, 72, 92, 95,  98,  112, 100, 103, 99};
        Expr q = table[63];
        for (int i = 62; i >= 0; i--) {
            q = select(v * 8 + u == i, table[i], q);
        }
        Func step("step");
        step(u, v) = cast<float>(q) * quality_scale;

        RDom r(0, 8, "r");
        Expr bx = x - x % 8, by = y - y % 8;
        Func dct_rows("dct_rows"), dct("dct");
        dct_rows(x, y) = sum(basis(x % 8, r) * (in(bx + r, y) - 128.0f));
        dct(x, y) = sum(basis(y % 8, r) * dct_rows(x, by + r));

        Func dequantised("dequantised");
        Expr s = step(x % 8, y % 8);
        dequantised(x, y) = round(dct(x, y) / s) * s;

        Func idct_cols("idct_cols"), idct("idct");
        idct_cols(x, y) = sum(basis(r, y % 8) * dequantised(x, by + r));
        idct(x, y) = sum(basis(r, x % 8) * idct_cols(bx + r, y));

        output(x, y) = clamp(idct(x, y) + 128.0f, 0.0f, 255.0f);

        quality_scale.set_estimate(1.0f);
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(JpegRoundtrip, jpeg_roundtrip)
