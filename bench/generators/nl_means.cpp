// nl_means: non-local means denoising (Buades, Coll and Morel 2005) of an RGB float image:
// each pixel is the weighted mean of the pixels in its 5x5 search window, weighted by
// exp(-(mean squared difference of the 7x7 patches) / h^2). Patch distances for every search
// offset are box-filtered separably. Image 614x1024. No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class NlMeans : public Generator<NlMeans> {
public:
    Input<Buffer<float>> input{"input", 3};
    Input<float> h{"h", 0.12f, 0.001f, 1.0f};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        const int patch = 7, search = 5;
        const int pr = patch / 2, sr = search / 2;
        Var x("x"), y("y"), c("c"), dx("dx"), dy("dy");
        Func clamped = BoundaryConditions::repeat_edge(input);

        // Squared colour difference between pixel (x, y) and pixel (x + dx, y + dy).
        Func diff("diff");
        Expr e0 = clamped(x, y, 0) - clamped(x + dx, y + dy, 0);
        Expr e1 = clamped(x, y, 1) - clamped(x + dx, y + dy, 1);
        Expr e2 = clamped(x, y, 2) - clamped(x + dx, y + dy, 2);
        diff(x, y, dx, dy) = e0 * e0 + e1 * e1 + e2 * e2;

        // Sum over the patch, separably.
        Func patch_x("patch_x"), patch_y("patch_y");
        RDom px(-pr, patch, "px"), py(-pr, patch, "py");
        patch_x(x, y, dx, dy) = 0.0f;
        patch_x(x, y, dx, dy) += diff(x + px, y, dx, dy);
        patch_y(x, y, dx, dy) = 0.0f;
        patch_y(x, y, dx, dy) += patch_x(x, y + py, dx, dy);

        Func weight("weight");
        Expr inv = 1.0f / (3.0f * patch * patch * h * h);
        weight(x, y, dx, dy) = exp(-patch_y(x, y, dx, dy) * inv);

        RDom s(-sr, search, -sr, search, "s");
        Func blended("blended");
        blended(x, y, c) = 0.0f;
        blended(x, y, c) +=
            weight(x, y, s.x, s.y) * select(c < 3, clamped(x + s.x, y + s.y, c), 1.0f);
        output(x, y, c) = blended(x, y, c) / blended(x, y, 3);

        h.set_estimate(0.12f);
        input.set_estimates({{0, 614}, {0, 1024}, {0, 3}});
        output.set_estimates({{0, 614}, {0, 1024}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(NlMeans, nl_means)
