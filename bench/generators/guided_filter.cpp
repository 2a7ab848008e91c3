// guided_filter: edge-preserving smoothing of a float image p guided by a grey image I (He, Sun
// and Tang's guided filter). Local linear model q = a * I + b per (2r+1)^2 window: box means of
// I, p, I*I and I*p give a = cov(I, p) / (var(I) + eps) and b = mean(p) - a * mean(I); q is
// built from the box means of a and b. Every box mean is separable (a row sum, then a column
// sum). Held-out pipeline (session 61): no term or model was tuned on it. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class GuidedFilter : public Generator<GuidedFilter> {
public:
    Input<Buffer<float>> guide{"guide", 2};
    Input<Buffer<float>> input{"input", 2};
    Input<float> eps{"eps", 1e-3f, 1e-6f, 1.0f};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        const int radius = 6;
        const float norm = 1.0f / float((2 * radius + 1) * (2 * radius + 1));

        Func g = BoundaryConditions::repeat_edge(guide);
        Func p = BoundaryConditions::repeat_edge(input);

        // box(f): the mean of f over the (2r+1)^2 window, a row sum then a column sum.
        RDom k(-radius, 2 * radius + 1, "k");
        auto box = [&](Func f, const std::string &name) {
            Func rows(name + "_rows");
            rows(x, y) = sum(f(x + k, y));
            Func mean(name + "_mean");
            mean(x, y) = sum(rows(x, y + k)) * norm;
            return mean;
        };

        Func gg("gg"), gp("gp");
        gg(x, y) = g(x, y) * g(x, y);
        gp(x, y) = g(x, y) * p(x, y);
        Func mean_g = box(g, "g");
        Func mean_p = box(p, "p");
        Func corr_gg = box(gg, "gg");
        Func corr_gp = box(gp, "gp");

        Func a("a"), b("b");
        Expr var_g = corr_gg(x, y) - mean_g(x, y) * mean_g(x, y);
        Expr cov_gp = corr_gp(x, y) - mean_g(x, y) * mean_p(x, y);
        a(x, y) = cov_gp / (var_g + eps);
        b(x, y) = mean_p(x, y) - a(x, y) * mean_g(x, y);
        Func mean_a = box(a, "a");
        Func mean_b = box(b, "b");

        output(x, y) = mean_a(x, y) * guide(x, y) + mean_b(x, y);

        eps.set_estimate(1e-3f);
        guide.set_estimates({{0, 2048}, {0, 2048}});
        input.set_estimates({{0, 2048}, {0, 2048}});
        output.set_estimates({{0, 2048}, {0, 2048}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(GuidedFilter, guided_filter)
