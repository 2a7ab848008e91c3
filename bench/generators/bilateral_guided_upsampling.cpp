// bilateral_guided_upsampling: bilateral guided upsampling (Chen, Adams, Wadhwa and Hasinoff,
// SIGGRAPH Asia 2016). A low-resolution RGB image and its processed version are compared in a
// bilateral grid (cells of 8x8 low-res pixels x 8 luminance bins with tent weights in z): each
// cell gathers the least-squares statistics sum(w x x^T) (4x4) and sum(w x y^T) (4x3), x =
// [r, g, b, 1] of the input and y the processed RGB, in a 5-D grid (x, y, z, row, column). The
// grid is blurred with 1-2-1 kernels in z, x and y, and every cell solves (A + lambda I) M = B
// for its 4x3 affine colour model M through an explicit 4x4 Cholesky factorisation, forward and
// back substitution: one small pointwise Func per matrix entry (60 Funcs, and one that packs
// the 12 coefficients). The full-resolution image then reads the coefficients by trilinear
// interpolation at its own pixel position and luminance and applies the affine model. 72 Funcs
// in all (77 with the input wrappers Halide adds). No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class BilateralGuidedUpsampling : public Generator<BilateralGuidedUpsampling> {
public:
    Input<Buffer<float>> low_in{"low_in", 3};         // low-res RGB, (x, y, c), in [0, 1]
    Input<Buffer<float>> low_out{"low_out", 3};       // low_in after the operator to be learned
    Input<Buffer<float>> high_in{"high_in", 3};       // full-res RGB, 8x the size of low_in
    Input<float> lambda{"lambda", 1e-2f, 0.0f, 1.0f}; // ridge term added to A's diagonal
    Output<Buffer<float>> output{"output", 3};        // full-res, (x, y, c)

    void generate() {
        const int scale = 8; // full-res pixels per low-res pixel, each way
        const int cell = 8;  // low-res pixels per grid cell, each way
        const int bins = 8;  // luminance bins: grid z in [0, bins]
        Var x("x"), y("y"), z("z"), c("c"), i("i"), j("j"), k("k");

        // Guide: luminance in [0, 1], in units of z bins.
        auto luminance = [&](Func rgb, Expr px, Expr py) {
            Expr l = 0.299f * rgb(px, py, 0) + 0.587f * rgb(px, py, 1) + 0.114f * rgb(px, py, 2);
            return clamp(l, 0.0f, 1.0f) * float(bins);
        };
        Func lo_in = BoundaryConditions::repeat_edge(low_in);
        Func lo_out = BoundaryConditions::repeat_edge(low_out);
        Func guide("guide");
        guide(x, y) = luminance(lo_in, x, y);
        // Per pixel v = [r, g, b, 1, r', g', b']: the regression's inputs then its targets.
        Func sample("sample");
        sample(x, y, j) = mux(j, {lo_in(x, y, 0), lo_in(x, y, 1), lo_in(x, y, 2), 1.0f,
                                  lo_out(x, y, 0), lo_out(x, y, 1), lo_out(x, y, 2)});

        // Gather: cell (x, y, z) sums w v_i v_j over its 8x8 pixels, w the tent weight of the
        // pixel's luminance around bin z. i in [0, 4), j in [0, 7): j < 4 is A, j >= 4 is B.
        RDom r(0, cell, 0, cell, "r");
        Expr px = x * cell + r.x, py = y * cell + r.y;
        Expr w = max(0.0f, 1.0f - abs(guide(px, py) - cast<float>(z)));
        Func grid("grid");
        grid(x, y, z, i, j) = 0.0f;
        grid(x, y, z, i, j) += w * sample(px, py, i) * sample(px, py, j);

        // Blur the statistics with 1-2-1 / 4 in z, then x, then y.
        auto blur = [&](Func f, const std::string &name, int axis) {
            Func b(name);
            auto at = [&](int d) {
                return f(x + (axis == 0 ? d : 0), y + (axis == 1 ? d : 0), z + (axis == 2 ? d : 0),
                         i, j);
            };
            b(x, y, z, i, j) = (at(-1) + 2.0f * at(0) + at(1)) * 0.25f;
            return b;
        };
        Func blurred = blur(blur(blur(grid, "blur_z", 2), "blur_x", 0), "blur_y", 1);

        // Per cell, pointwise over (x, y, z): the upper triangle of A + lambda I and B.
        auto cell_func = [&](const std::string &name, Expr e) {
            Func f(name);
            f(x, y, z) = e;
            return f;
        };
        auto idx = [](int p, int q) { return std::to_string(p) + "_" + std::to_string(q); };
        Func a[4][4], b[4][3];
        for (int p = 0; p < 4; p++) {
            for (int q = p; q < 4; q++) {
                Expr e = blurred(x, y, z, p, q);
                a[p][q] = cell_func("a_" + idx(p, q), p == q ? e + lambda : e);
            }
            for (int col = 0; col < 3; col++) {
                b[p][col] = cell_func("b_" + idx(p, col), blurred(x, y, z, p, 4 + col));
            }
        }

        // Cholesky: A + lambda I = L L^T, L lower triangular; l[p][q] for q <= p, and the
        // reciprocals of its diagonal. The max() only guards rounding: the pivots are
        // mathematically >= lambda.
        Func l[4][4], inv_diag[4];
        for (int p = 0; p < 4; p++) {
            for (int q = 0; q < p; q++) {
                Expr e = a[q][p](x, y, z);
                for (int s = 0; s < q; s++)
                    e -= l[p][s](x, y, z) * l[q][s](x, y, z);
                l[p][q] = cell_func("l_" + idx(p, q), e * inv_diag[q](x, y, z));
            }
            Expr d = a[p][p](x, y, z);
            for (int s = 0; s < p; s++)
                d -= l[p][s](x, y, z) * l[p][s](x, y, z);
            l[p][p] = cell_func("l_" + idx(p, p), sqrt(max(d, 1e-10f)));
            inv_diag[p] = cell_func("inv_l_" + std::to_string(p), 1.0f / l[p][p](x, y, z));
        }

        // Per column of B: forward substitution L t = b, then back substitution L^T m = t.
        Func t[4][3], m[4][3];
        for (int col = 0; col < 3; col++) {
            for (int p = 0; p < 4; p++) {
                Expr e = b[p][col](x, y, z);
                for (int s = 0; s < p; s++)
                    e -= l[p][s](x, y, z) * t[s][col](x, y, z);
                t[p][col] = cell_func("fwd_" + idx(p, col), e * inv_diag[p](x, y, z));
            }
            for (int p = 3; p >= 0; p--) {
                Expr e = t[p][col](x, y, z);
                for (int s = p + 1; s < 4; s++)
                    e -= l[s][p](x, y, z) * m[s][col](x, y, z);
                m[p][col] = cell_func("m_" + idx(p, col), e * inv_diag[p](x, y, z));
            }
        }
        // The 12 coefficients, k = 3 p + col: out_col = sum_p m[p][col] x_p.
        std::vector<Expr> coefficients;
        for (int p = 0; p < 4; p++) {
            for (int col = 0; col < 3; col++)
                coefficients.push_back(m[p][col](x, y, z));
        }
        Func affine("affine");
        affine(x, y, z, k) = mux(k, coefficients);

        // Slice: trilinear interpolation between cell centres, at the full-res pixel's position
        // and luminance (the bin index clamped so that z0 + 1 <= bins).
        Func hi_guide("hi_guide");
        hi_guide(x, y) = luminance(high_in, x, y);
        const float to_grid = 1.0f / float(scale * cell);
        Expr gx = (cast<float>(x) + 0.5f) * to_grid - 0.5f;
        Expr gy = (cast<float>(y) + 0.5f) * to_grid - 0.5f;
        Expr gz = hi_guide(x, y);
        Expr x0 = cast<int>(floor(gx)), y0 = cast<int>(floor(gy));
        Expr z0 = clamp(cast<int>(floor(gz)), 0, bins - 1);
        Expr wx = gx - cast<float>(x0), wy = gy - cast<float>(y0), wz = gz - cast<float>(z0);
        auto mix = [](Expr u, Expr v, Expr s) { return u * (1.0f - s) + v * s; };
        auto g = [&](int dx, int dy, int dz) { return affine(x0 + dx, y0 + dy, z0 + dz, k); };
        Expr lo = mix(mix(g(0, 0, 0), g(1, 0, 0), wx), mix(g(0, 1, 0), g(1, 1, 0), wx), wy);
        Expr hi = mix(mix(g(0, 0, 1), g(1, 0, 1), wx), mix(g(0, 1, 1), g(1, 1, 1), wx), wy);
        Func sliced("sliced");
        sliced(x, y, k) = mix(lo, hi, wz);

        output(x, y, c) = sliced(x, y, c) * high_in(x, y, 0) +
                          sliced(x, y, 3 + c) * high_in(x, y, 1) +
                          sliced(x, y, 6 + c) * high_in(x, y, 2) + sliced(x, y, 9 + c);

        // 1e-2, not smaller: sparse cells (the top luminance bin, where x = [r, g, b, 1] is
        // nearly collinear) then stay conditioned well enough that schedules agree to 1e-4 on
        // independent random inputs; 1e-4 did not (worst 3.6e-4 in a bench-style check).
        lambda.set_estimate(1e-2f);
        low_in.set_estimates({{0, 192}, {0, 320}, {0, 3}});
        low_out.set_estimates({{0, 192}, {0, 320}, {0, 3}});
        high_in.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(BilateralGuidedUpsampling, bilateral_guided_upsampling)
