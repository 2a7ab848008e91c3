// camera_pipe: a raw-to-RGB camera pipeline for a 10-bit GRBG Bayer sensor (2592x1968):
// hot-pixel suppression against same-colour neighbours, black/white-level normalisation,
// bilinear demosaicking, a 3x4 colour-correction matrix, and a gamma + contrast tone curve
// applied through a 1024-entry lookup table, to 8-bit RGB. No schedule.
#include "CameraFrontEnd.h"
#include "Halide.h"

namespace {

using namespace Halide;

class CameraPipe : public Generator<CameraPipe> {
public:
    Input<Buffer<uint16_t>> raw{"raw", 2};
    Input<Buffer<float>> matrix{"matrix", 2}; // (column 0..3, row 0..2); column 3 is an offset
    Input<float> gamma{"gamma", 2.2f, 1.0f, 4.0f};
    Input<float> contrast{"contrast", 0.3f, 0.0f, 1.0f};
    Input<int> black_level{"black_level", 25, 0, 1023};
    Input<int> white_level{"white_level", 1023, 1, 1023};
    Output<Buffer<uint8_t>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c"), i("i");
        // Mirroring about the edge pixel keeps the Bayer parity.
        Func mirrored = BoundaryConditions::mirror_interior(raw);
        // Hot pixels: each sample clamped to the range of its four same-colour neighbours.
        Func denoised = bench::hot_pixels_suppressed(mirrored, x, y);

        // Integer arithmetic from here to the lookup table, as camera ISPs do: every schedule
        // then produces bit-identical 8-bit output.
        Func linear("linear");
        Expr range = max(white_level - black_level, 1);
        linear(x, y) = clamp((denoised(x, y) - black_level) * 1023 / range, 0, 1023);

        // Bilinear demosaic. GRBG: (even, even) G, (odd, even) R, (even, odd) B, (odd, odd) G.
        Func horiz("horiz"), vert("vert"), cross("cross"), diag("diag");
        horiz(x, y) = (linear(x - 1, y) + linear(x + 1, y) + 1) >> 1;
        vert(x, y) = (linear(x, y - 1) + linear(x, y + 1) + 1) >> 1;
        cross(x, y) =
            (linear(x - 1, y) + linear(x + 1, y) + linear(x, y - 1) + linear(x, y + 1) + 2) >> 2;
        diag(x, y) = (linear(x - 1, y - 1) + linear(x + 1, y - 1) + linear(x - 1, y + 1) +
                      linear(x + 1, y + 1) + 2) >>
                     2;
        Expr x_odd = (x % 2) == 1, y_odd = (y % 2) == 1;
        Expr at_r = x_odd && !y_odd, at_b = !x_odd && y_odd;
        Expr at_g_rrow = !x_odd && !y_odd, at_g_brow = x_odd && y_odd;
        Func demosaiced("demosaiced");
        Expr red = select(at_r, linear(x, y), at_b, diag(x, y), at_g_rrow, horiz(x, y), vert(x, y));
        Expr blue =
            select(at_b, linear(x, y), at_r, diag(x, y), at_g_brow, horiz(x, y), vert(x, y));
        Expr green = select(at_g_rrow || at_g_brow, linear(x, y), cross(x, y));
        demosaiced(x, y, c) = mux(c, {red, green, blue});

        // Colour correction in 8.8 fixed point; column 3 is an offset in units of full scale.
        Var j("j");
        Func ccm("ccm");
        ccm(j, c) = cast<int32_t>(round(matrix(j, c) * 256.0f));
        Func corrected("corrected");
        corrected(x, y, c) =
            clamp((ccm(0, c) * demosaiced(x, y, 0) + ccm(1, c) * demosaiced(x, y, 1) +
                   ccm(2, c) * demosaiced(x, y, 2) + ccm(3, c) * 1023 + 128) >>
                      8,
                  0, 1023);

        // Tone curve: gamma, then a symmetric S-shaped contrast boost.
        Func curve("curve");
        Expr v = pow(cast<float>(i) / 1023.0f, 1.0f / gamma);
        Expr s = v + contrast * v * (1.0f - v) * (2.0f * v - 1.0f) * -1.0f;
        curve(i) = cast<uint8_t>(clamp(s, 0.0f, 1.0f) * 255.0f + 0.5f);

        output(x, y, c) = curve(corrected(x, y, c));

        gamma.set_estimate(2.2f);
        contrast.set_estimate(0.3f);
        black_level.set_estimate(25);
        white_level.set_estimate(1023);
        raw.set_estimates({{0, 2592}, {0, 1968}});
        matrix.set_estimates({{0, 4}, {0, 3}});
        output.set_estimates({{0, 2592}, {0, 1968}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(CameraPipe, camera_pipe)
