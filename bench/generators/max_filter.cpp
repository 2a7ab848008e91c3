// max_filter: a disk-shaped (radius 12) morphological dilation (max filter) of an RGB float
// image. Vertical maxima over power-of-two windows (a sparse table, built by doubling) give
// any column span as the max of two overlapping windows; the disk is the max over its columns.
// No schedule.
#include "Halide.h"

namespace {

using namespace Halide;

class MaxFilter : public Generator<MaxFilter> {
public:
    Input<Buffer<float>> input{"input", 3};
    Output<Buffer<float>> output{"output", 3};

    void generate() {
        Var x("x"), y("y"), c("c"), k("k"), d("d");
        const int radius = 12;
        const int levels = 5; // windows of height 1, 2, 4, 8, 16 (>= radius + 1)

        Func clamped = BoundaryConditions::repeat_edge(input);

        // window[j](x, y, c) = max of rows y .. y + 2^j - 1.
        std::vector<Func> window;
        window.emplace_back("window_0");
        window[0](x, y, c) = clamped(x, y, c);
        for (int j = 1; j < levels; j++) {
            Func w("window_" + std::to_string(j));
            const int half = 1 << (j - 1);
            w(x, y, c) = max(window[j - 1](x, y, c), window[j - 1](x, y + half, c));
            window.push_back(w);
        }
        Func table("table");
        Expr pick = window[levels - 1](x, y, c);
        for (int j = levels - 2; j >= 0; j--) {
            pick = select(k == j, window[j](x, y, c), pick);
        }
        table(x, y, c, k) = pick;

        // Per column offset d: half-height of the disk, and the table level that covers it.
        Func half_height("half_height");
        Expr fd = cast<float>(d);
        half_height(d) = cast<int>(floor(sqrt(float(radius * radius) - fd * fd)));
        Func level("level");
        Expr span = 2 * half_height(d) + 1;
        Expr lv = 0;
        for (int j = 1; j < levels; j++) {
            lv = select(span >= (1 << j), j, lv);
        }
        level(d) = lv;

        // Row offsets of the two windows; clamped so bounds inference sees them bounded.
        Func top_offset("top_offset"), bottom_offset("bottom_offset");
        top_offset(d) = clamp(-half_height(d), -radius, 0);
        bottom_offset(d) =
            clamp(half_height(d) + 1 - (1 << clamp(level(d), 0, levels - 1)), -radius, radius);

        RDom r(-radius, 2 * radius + 1, "r");
        Expr lvl = clamp(level(r), 0, levels - 1);
        Expr top = table(x + r, y + top_offset(r), c, lvl);
        Expr bottom = table(x + r, y + bottom_offset(r), c, lvl);
        Func dilated("dilated");
        dilated(x, y, c) = maximum(max(top, bottom));
        output(x, y, c) = dilated(x, y, c);

        input.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
        output.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(MaxFilter, max_filter)
