// local_laplacian: local Laplacian filtering (Paris, Hasinoff and Kautz 2011) in its fast
// sampled form: the luminance of a 16-bit RGB image is remapped around 8 reference
// intensities, a Laplacian pyramid (8 levels) is built for each remapped image, each output
// pyramid coefficient interpolates between the two nearest references chosen by the input's
// Gaussian pyramid, and the collapsed pyramid rescales the colours (float output in [0, 1]:
// a quantised output would differ by 1 LSB between schedules that round differently).
// No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class LocalLaplacian : public Generator<LocalLaplacian> {
public:
    GeneratorParam<int> pyramid_levels{"pyramid_levels", 8};
    GeneratorParam<int> intensity_levels{"intensity_levels", 8};
    Input<Buffer<uint16_t>> input{"input", 3};
    Input<float> detail{"detail", 1.0f, 0.0f, 4.0f}; // > 0 boosts local contrast
    Input<float> sigma{"sigma", 0.1f, 0.01f, 1.0f};  // remapping range around each reference
    Output<Buffer<float>> output{"output", 3};       // in [0, 1]

    Var x{"x"}, y{"y"}, c{"c"}, k{"k"};

    /** A Func's variables past (x, y): calls it at a new (x, y) with the others unchanged. */
    struct AtXY {
        std::vector<Var> lhs;   // x, y, then the Func's other variables
        std::vector<Expr> rest; // the other variables
        Expr operator()(Func g, Expr a, Expr b) const {
            std::vector<Expr> args{a, b};
            args.insert(args.end(), rest.begin(), rest.end());
            return g(args);
        }
    };
    AtXY at_xy(Func f) {
        const std::vector<Var> args = f.args();
        AtXY r;
        r.lhs = {x, y};
        r.lhs.insert(r.lhs.end(), args.begin() + 2, args.end());
        r.rest.assign(args.begin() + 2, args.end());
        return r;
    }

    // 2x decimation with the separable [1 3 3 1] / 8 kernel.
    Func downsample(Func f, const std::string &name) {
        Func dx(name + "_dx"), dy(name);
        const AtXY call = at_xy(f);
        dx(call.lhs) = (call(f, 2 * x - 1, y) + 3.0f * (call(f, 2 * x, y) + call(f, 2 * x + 1, y)) +
                        call(f, 2 * x + 2, y)) *
                       0.125f;
        dy(call.lhs) =
            (call(dx, x, 2 * y - 1) + 3.0f * (call(dx, x, 2 * y) + call(dx, x, 2 * y + 1)) +
             call(dx, x, 2 * y + 2)) *
            0.125f;
        return dy;
    }

    // 2x linear upsampling (weights 3/4 and 1/4 from the two nearest coarse samples).
    Func upsample(Func f, const std::string &name) {
        Func ux(name + "_ux"), uy(name);
        const AtXY call = at_xy(f);
        ux(call.lhs) = 0.75f * call(f, x / 2, y) + 0.25f * call(f, x / 2 - 1 + 2 * (x % 2), y);
        uy(call.lhs) = 0.75f * call(ux, x, y / 2) + 0.25f * call(ux, x, y / 2 - 1 + 2 * (y % 2));
        return uy;
    }

    void generate() {
        const int levels = pyramid_levels, refs = intensity_levels;
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func rgb("rgb");
        rgb(x, y, c) = cast<float>(clamped(x, y, c)) * (1.0f / 65535.0f);
        Func gray("gray");
        gray(x, y) = 0.299f * rgb(x, y, 0) + 0.587f * rgb(x, y, 1) + 0.114f * rgb(x, y, 2);

        // Remap the luminance around reference intensity g_k = k / (refs - 1): details
        // (|i - g| within about sigma) are amplified by `detail`, large edges are kept.
        Func remapped("remapped");
        Expr g = cast<float>(k) / (refs - 1);
        Expr d = gray(x, y) - g;
        remapped(x, y, k) = gray(x, y) + detail * d * exp(-d * d / (2.0f * sigma * sigma));

        std::vector<Func> g_pyr(levels), l_pyr(levels), in_pyr(levels), out_l(levels),
            out_g(levels);
        g_pyr[0] = remapped;
        in_pyr[0] = gray;
        for (int l = 1; l < levels; l++) {
            g_pyr[l] = downsample(g_pyr[l - 1], "g_pyr_" + std::to_string(l));
            in_pyr[l] = downsample(in_pyr[l - 1], "in_pyr_" + std::to_string(l));
        }
        l_pyr[levels - 1] = g_pyr[levels - 1];
        for (int l = levels - 2; l >= 0; l--) {
            Func up = upsample(g_pyr[l + 1], "g_up_" + std::to_string(l));
            l_pyr[l] = Func("l_pyr_" + std::to_string(l));
            l_pyr[l](x, y, k) = g_pyr[l](x, y, k) - up(x, y, k);
        }

        // Each output coefficient blends the two references bracketing the input's intensity.
        for (int l = 0; l < levels; l++) {
            out_l[l] = Func("out_l_" + std::to_string(l));
            Expr pos = clamp(in_pyr[l](x, y), 0.0f, 1.0f) * (refs - 1);
            Expr lo = clamp(cast<int>(floor(pos)), 0, refs - 2);
            Expr t = pos - lo;
            out_l[l](x, y) = lerp(l_pyr[l](x, y, lo), l_pyr[l](x, y, lo + 1), t);
        }
        out_g[levels - 1] = out_l[levels - 1];
        for (int l = levels - 2; l >= 0; l--) {
            Func up = upsample(out_g[l + 1], "out_up_" + std::to_string(l));
            out_g[l] = Func("out_g_" + std::to_string(l));
            out_g[l](x, y) = up(x, y) + out_l[l](x, y);
        }

        Func colour("colour");
        colour(x, y, c) = rgb(x, y, c) * out_g[0](x, y) / max(gray(x, y), 1e-4f);
        output(x, y, c) = clamp(colour(x, y, c), 0.0f, 1.0f);

        detail.set_estimate(1.0f);
        sigma.set_estimate(0.1f);
        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(LocalLaplacian, local_laplacian)
