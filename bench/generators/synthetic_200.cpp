// synthetic_200: a deterministic synthetic pipeline of exactly 200 Funcs over a 1024x1024
// float image, for scheduling many small stages at once. Stage 0 reads the input; stage s
// (1..189) reads its predecessor p = stage s-1 and a partner q: stage 0 for the averages
// (they re-inject the input, so the image keeps its detail to the end), otherwise the skip
// stage max(0, s-2-s%7). Its kind follows from s (stage_kind below): four pointwise kinds,
// four 3-tap stencils, a 5-D stage every 40 (a (x, y, 3, 3, 2) Func of shifted p and q,
// summed back to 2-D: two Funcs) and a column- or row-mean every 50 (a 1-D reduction then a
// pointwise use: two Funcs). 1 + 189 + 5 + 4 + the output = 200 Funcs. Stencils clamp their
// coordinates to the image, so every stage is exactly image-sized; every stage is a convex-ish
// combination of values in [0, 1] (1-Lipschitz), so rounding does not grow along the chain. No
// schedule.
#include "Halide.h"

namespace {

using namespace Halide;

enum class StageKind {
    Average,     // (p + q) / 2, q the input
    StencilX,    // 1-2-1 / 4 along x
    Squash,      // p (1/2 + p/4) + 1/8: a contracting quadratic
    StencilY,    // 1-2-1 / 4 along y
    Blend,       // min(p, q) / 4 + 3 max(p, q) / 4
    StencilDiag, // 1-2-1 / 4 along the anti-diagonal
    AbsDiff,     // |p - q| / 2 + (p + q) / 4
    MaxX,        // (p + max of q over 3 taps in x) / 2
    Lift5D,      // sum over (u, v, w) of [p, q](x + u - 1, y + v - 1) / 18, through a 5-D Func
    MeanColumns, // q / 2 + p / 4 + (1 - column mean of p) / 4
    MeanRows,    // q / 2 + p / 4 + (1 - row mean of p) / 4
};

StageKind stage_kind(int s) {
    if (s % 40 == 20) return StageKind::Lift5D;
    if (s % 50 == 35) return (s / 50) % 2 == 0 ? StageKind::MeanColumns : StageKind::MeanRows;
    return StageKind(s % 8);
}

class Synthetic200 : public Generator<Synthetic200> {
public:
    Input<Buffer<float>> input{"input", 2}; // values in [0, 1]
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        const int stages = 189;
        Var x("x"), y("y"), u("u"), v("v"), w("w"), n("n");
        Expr x_lo = input.dim(0).min(), x_hi = input.dim(0).max();
        Expr y_lo = input.dim(1).min(), y_hi = input.dim(1).max();
        auto at = [&](Func f, Expr px, Expr py) {
            return f(clamp(px, x_lo, x_hi), clamp(py, y_lo, y_hi));
        };

        std::vector<Func> stage(stages + 1);
        stage[0] = Func("stage_0");
        stage[0](x, y) = input(x, y);
        for (int s = 1; s <= stages; s++) {
            const std::string name = "stage_" + std::to_string(s);
            const StageKind kind = stage_kind(s);
            Func p = stage[s - 1];
            Func q = kind == StageKind::Average ? stage[0] : stage[std::max(0, s - 2 - s % 7)];
            Func f(name);
            switch (kind) {
            case StageKind::Average:
                f(x, y) = 0.5f * (p(x, y) + q(x, y));
                break;
            case StageKind::StencilX:
                f(x, y) = (at(p, x - 1, y) + 2.0f * p(x, y) + at(p, x + 1, y)) * 0.25f;
                break;
            case StageKind::Squash:
                f(x, y) = p(x, y) * (0.5f + 0.25f * p(x, y)) + 0.125f;
                break;
            case StageKind::StencilY:
                f(x, y) = (at(p, x, y - 1) + 2.0f * p(x, y) + at(p, x, y + 1)) * 0.25f;
                break;
            case StageKind::Blend:
                f(x, y) = 0.25f * min(p(x, y), q(x, y)) + 0.75f * max(p(x, y), q(x, y));
                break;
            case StageKind::StencilDiag:
                f(x, y) = (at(p, x - 1, y + 1) + 2.0f * p(x, y) + at(p, x + 1, y - 1)) * 0.25f;
                break;
            case StageKind::AbsDiff:
                f(x, y) = 0.5f * abs(p(x, y) - q(x, y)) + 0.25f * (p(x, y) + q(x, y));
                break;
            case StageKind::MaxX:
                f(x, y) = 0.5f * (p(x, y) + max(at(q, x - 1, y), q(x, y), at(q, x + 1, y)));
                break;
            case StageKind::Lift5D: {
                Func lift(name + "_lift");
                lift(x, y, u, v, w) =
                    mux(w, {at(p, x + u - 1, y + v - 1), at(q, x + u - 1, y + v - 1)});
                RDom r(0, 3, 0, 3, 0, 2, name + "_r");
                f(x, y) = 0.0f;
                f(x, y) += lift(x, y, r.x, r.y, r.z) * (1.0f / 18.0f);
                break;
            }
            case StageKind::MeanColumns:
            case StageKind::MeanRows: {
                const bool columns = kind == StageKind::MeanColumns;
                Func total(name + "_sum");
                if (columns) {
                    RDom r(y_lo, input.dim(1).extent(), name + "_r");
                    total(n) = 0.0f;
                    total(n) += p(n, r);
                    f(x, y) = 0.5f * q(x, y) + 0.25f * p(x, y) +
                              0.25f * (1.0f - total(x) / cast<float>(input.dim(1).extent()));
                } else {
                    RDom r(x_lo, input.dim(0).extent(), name + "_r");
                    total(n) = 0.0f;
                    total(n) += p(r, n);
                    f(x, y) = 0.5f * q(x, y) + 0.25f * p(x, y) +
                              0.25f * (1.0f - total(y) / cast<float>(input.dim(0).extent()));
                }
                break;
            }
            }
            stage[s] = f;
        }
        output(x, y) = stage[stages](x, y);

        input.set_estimates({{0, 1024}, {0, 1024}});
        output.set_estimates({{0, 1024}, {0, 1024}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(Synthetic200, synthetic_200)
