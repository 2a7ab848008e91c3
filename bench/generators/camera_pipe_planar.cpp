// camera_pipe_planar: a raw-to-RGB camera pipeline that demosaics on the four colour planes of
// a GRBG Bayer sensor (2592x1968, 10-bit) rather than on the mosaic: hot-pixel suppression,
// deinterleaving into four half-resolution planes, an edge-directed demosaic (green along the
// smoother of the two axes, red and blue by interpolating colour differences to green, along
// the smoother diagonal where both neighbours are diagonal), interleaving back to full
// resolution, a colour matrix blended between two illuminants by colour temperature, a
// gamma + contrast tone curve through a 1024-entry table, and an unsharp-mask sharpen, to 8-bit
// RGB. About thirty Funcs, most of them cheap, which is what makes it hard to schedule: the
// bench's camera_pipe demosaics with one select per pixel and has a third as many. Integer
// arithmetic to the table, so every schedule gives bit-identical output. No schedule.
#include "CameraFrontEnd.h"
#include "Halide.h"

namespace {

using namespace Halide;

class CameraPipePlanar : public Generator<CameraPipePlanar> {
public:
    Input<Buffer<uint16_t>> raw{"raw", 2};
    // (column 0..3, row 0..2); column 3 is an offset. One matrix per illuminant.
    Input<Buffer<float>> matrix_3200{"matrix_3200", 2};
    Input<Buffer<float>> matrix_7000{"matrix_7000", 2};
    Input<float> color_temp{"color_temp", 3700.0f, 1000.0f, 20000.0f};
    Input<float> gamma{"gamma", 2.0f, 1.0f, 4.0f};
    Input<float> contrast{"contrast", 0.5f, 0.0f, 1.0f};
    Input<int> sharpen_strength{"sharpen_strength", 3, 0, 16}; // in 1/4 units
    Input<int> black_level{"black_level", 25, 0, 1023};
    Input<int> white_level{"white_level", 1023, 1, 1023};
    Output<Buffer<uint8_t>> output{"output", 3};

    Var x{"x"}, y{"y"}, c{"c"};

    // Mean of two, rounded.
    static Expr avg(Expr a, Expr b) { return (a + b + 1) >> 1; }

    // A full-resolution Func from two half-resolution ones alternating along x.
    Func interleave_x(Func even, Func odd, const std::string &name) {
        Func f(name);
        f(x, y) = select((x % 2) == 0, even(x / 2, y), odd(x / 2, y));
        return f;
    }
    Func interleave_y(Func even, Func odd, const std::string &name) {
        Func f(name);
        f(x, y) = select((y % 2) == 0, even(x, y / 2), odd(x, y / 2));
        return f;
    }

    void generate() {
        // Mirroring about the edge pixel keeps the Bayer parity.
        Func mirrored = BoundaryConditions::mirror_interior(raw);
        // Hot pixels: each sample clamped to the range of its four same-colour neighbours.
        Func denoised = bench::hot_pixels_suppressed(mirrored, x, y);

        // The four planes, half resolution. GRBG: (even, even) G, (odd, even) R,
        // (even, odd) B, (odd, odd) G.
        Func deinterleaved("deinterleaved");
        deinterleaved(x, y, c) =
            mux(c, {denoised(2 * x, 2 * y), denoised(2 * x + 1, 2 * y), denoised(2 * x, 2 * y + 1),
                    denoised(2 * x + 1, 2 * y + 1)});
        Func g_gr("g_gr"), r_r("r_r"), b_b("b_b"), g_gb("g_gb");
        g_gr(x, y) = deinterleaved(x, y, 0);
        r_r(x, y) = deinterleaved(x, y, 1);
        b_b(x, y) = deinterleaved(x, y, 2);
        g_gb(x, y) = deinterleaved(x, y, 3);

        // Green at the red and blue sites: along the axis whose two greens differ least.
        // A red site (2x+1, 2y) has greens g_gr(x, y), g_gr(x+1, y) beside it and g_gb(x, y-1),
        // g_gb(x, y) above and below; a blue site (2x, 2y+1) has g_gb(x-1, y), g_gb(x, y)
        // beside it and g_gr(x, y), g_gr(x, y+1) above and below.
        Func g_r("g_r"), g_b("g_b");
        {
            Expr gh = absd(g_gr(x, y), g_gr(x + 1, y)), gv = absd(g_gb(x, y - 1), g_gb(x, y));
            g_r(x, y) =
                select(gh < gv, avg(g_gr(x, y), g_gr(x + 1, y)), avg(g_gb(x, y - 1), g_gb(x, y)));
        }
        {
            Expr gh = absd(g_gb(x - 1, y), g_gb(x, y)), gv = absd(g_gr(x, y), g_gr(x, y + 1));
            g_b(x, y) =
                select(gh < gv, avg(g_gb(x - 1, y), g_gb(x, y)), avg(g_gr(x, y), g_gr(x, y + 1)));
        }

        // Colour differences to green where red and blue were sampled.
        Func rg("rg"), bg("bg");
        rg(x, y) = r_r(x, y) - g_r(x, y);
        bg(x, y) = b_b(x, y) - g_b(x, y);

        // Red and blue at the green sites: green plus the mean difference of the two nearest
        // samples of that colour (beside or above/below).
        Func r_gr("r_gr"), b_gr("b_gr"), r_gb("r_gb"), b_gb("b_gb");
        r_gr(x, y) = g_gr(x, y) + avg(rg(x - 1, y), rg(x, y));
        b_gr(x, y) = g_gr(x, y) + avg(bg(x, y - 1), bg(x, y));
        r_gb(x, y) = g_gb(x, y) + avg(rg(x, y), rg(x, y + 1));
        b_gb(x, y) = g_gb(x, y) + avg(bg(x, y), bg(x + 1, y));

        // Red at blue sites and blue at red sites: the four neighbours are diagonal; use the
        // diagonal whose two differences agree best.
        Func r_b("r_b"), b_r("b_r");
        {
            // Blue site (2x, 2y+1): reds at (2x-1, 2y), (2x+1, 2y), (2x-1, 2y+2), (2x+1, 2y+2).
            Expr p0 = rg(x - 1, y), p1 = rg(x, y + 1); // one diagonal
            Expr n0 = rg(x, y), n1 = rg(x - 1, y + 1); // the other
            r_b(x, y) = g_b(x, y) + select(absd(p0, p1) < absd(n0, n1), avg(p0, p1), avg(n0, n1));
        }
        {
            // Red site (2x+1, 2y): blues at (2x, 2y-1), (2x+2, 2y-1), (2x, 2y+1), (2x+2, 2y+1).
            Expr p0 = bg(x, y - 1), p1 = bg(x + 1, y);
            Expr n0 = bg(x + 1, y - 1), n1 = bg(x, y);
            b_r(x, y) = g_r(x, y) + select(absd(p0, p1) < absd(n0, n1), avg(p0, p1), avg(n0, n1));
        }

        // Back to full resolution, one Func per row parity and one per channel.
        Func red = interleave_y(interleave_x(r_gr, r_r, "r_even_rows"),
                                interleave_x(r_b, r_gb, "r_odd_rows"), "red");
        Func green = interleave_y(interleave_x(g_gr, g_r, "g_even_rows"),
                                  interleave_x(g_b, g_gb, "g_odd_rows"), "green");
        Func blue = interleave_y(interleave_x(b_gr, b_r, "b_even_rows"),
                                 interleave_x(b_b, b_gb, "b_odd_rows"), "blue");
        Func demosaiced("demosaiced");
        demosaiced(x, y, c) = clamp(mux(c, {red(x, y), green(x, y), blue(x, y)}), 0, 1023);

        // Black and white levels, then the colour matrix for this colour temperature (blended
        // in 1/T between the two illuminants), in 8.8 fixed point.
        Func linear("linear");
        Expr range = max(white_level - black_level, 1);
        linear(x, y, c) = clamp((demosaiced(x, y, c) - black_level) * 1023 / range, 0, 1023);
        Var j("j");
        Func ccm("ccm");
        Expr alpha = (1.0f / color_temp - 1.0f / 3200.0f) / (1.0f / 7000.0f - 1.0f / 3200.0f);
        ccm(j, c) = cast<int32_t>(
            round((matrix_3200(j, c) * (1.0f - alpha) + matrix_7000(j, c) * alpha) * 256.0f));
        Func corrected("corrected");
        corrected(x, y, c) = clamp((ccm(0, c) * linear(x, y, 0) + ccm(1, c) * linear(x, y, 1) +
                                    ccm(2, c) * linear(x, y, 2) + ccm(3, c) * 1023 + 128) >>
                                       8,
                                   0, 1023);

        // Tone curve: gamma, then a symmetric S-shaped contrast boost.
        Var i("i");
        Func curve("curve");
        Expr v = pow(cast<float>(i) / 1023.0f, 1.0f / gamma);
        Expr s = v - contrast * v * (1.0f - v) * (2.0f * v - 1.0f);
        curve(i) = cast<int32_t>(clamp(s, 0.0f, 1.0f) * 255.0f + 0.5f);
        Func curved("curved");
        curved(x, y, c) = curve(corrected(x, y, c));

        // Unsharp mask: a [1 2 1] / 4 blur each way, the difference added back.
        Func blur_y("blur_y"), blur_x("blur_x");
        blur_y(x, y, c) =
            (curved(x, y - 1, c) + 2 * curved(x, y, c) + curved(x, y + 1, c) + 2) >> 2;
        blur_x(x, y, c) =
            (blur_y(x - 1, y, c) + 2 * blur_y(x, y, c) + blur_y(x + 1, y, c) + 2) >> 2;
        Expr sharp =
            curved(x, y, c) + ((sharpen_strength * (curved(x, y, c) - blur_x(x, y, c))) >> 2);
        output(x, y, c) = cast<uint8_t>(clamp(sharp, 0, 255));

        color_temp.set_estimate(3700.0f);
        gamma.set_estimate(2.0f);
        contrast.set_estimate(0.5f);
        sharpen_strength.set_estimate(3);
        black_level.set_estimate(25);
        white_level.set_estimate(1023);
        raw.set_estimates({{0, 2592}, {0, 1968}});
        matrix_3200.set_estimates({{0, 4}, {0, 3}});
        matrix_7000.set_estimates({{0, 4}, {0, 3}});
        output.set_estimates({{0, 2592}, {0, 1968}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(CameraPipePlanar, camera_pipe_planar)
