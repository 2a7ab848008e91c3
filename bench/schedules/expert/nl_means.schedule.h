// Expert schedule of nl_means (bench/generators/nl_means.cpp): non-local means over a 5x5
// search window with 7x7 patches, RGB float, 614x1024.
//
// Per 32x32 output tile (in parallel): the tile's input with its halo copied once (the edge
// clamps are paid there), then the horizontal patch sums of every search offset for the tile
// and its 6 halo rows (32 x 38 x 25 floats, 122 KiB: L2), row by row, each row's differences
// for the 5 offsets along x computed together just before they are summed (a vector of the
// centre pixels is loaded once for the five). The blend then runs per 32x4 block with the
// search offsets outermost and the block's 4 rows and 4 vectors unrolled, so each channel's
// accumulators stay in registers; per offset, the block's vertical sums and weights are made
// right there (32x4 floats each). Every value is computed once but the halo rows.
//
// Written in session 41 after Adams2019 once finished its search within the bench's 90 s and
// ran 17.0 ms (its search usually times out). Steps, each timed against Sextant's pick
// (`sextant-autotune --remeasure PICK,also:...BenchExpert --rounds 5`, min ms): everything per
// tile per offset 37.7 (Sextant 28.7); patch sums per tile for all offsets, blend per block
// 28.8 (26.6); the input copied per tile 24.1 (29.5); differences of 5 offsets per row 19.2
// (29.9).
#pragma once

#include "Expert.h"

inline void schedule_nl_means(const expert::Funcs &f) {
    using namespace Halide;
    const int tile = 32, block_rows = 4, lanes = 8;
    Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), yb("yb"), yr("yr");
    Var t("t");
    Func output = f("output"), blended = f("blended"), weight = f("weight");
    Func patch_y = f("patch_y"), patch_x = f("patch_x"), diff = f("diff");
    output.bound(c, 0, 3)
        .tile(x, y, xo, yo, xi, yi, tile, tile, TailStrategy::ShiftInwards)
        .split(yi, yb, yr, block_rows)
        .reorder(c, xi, yr, yb, xo, yo)
        .unroll(c)
        .vectorize(xi, lanes)
        .fuse(xo, yo, t)
        .parallel(t);
    // The tile's input with its halo (38 x 38 x 3 floats), copied once: the edge clamps are
    // paid there, not in every difference of every offset.
    Func input = f("repeat_edge");
    input.compute_at(output, t).vectorize(input.args()[0], lanes);
    patch_x.compute_at(output, t).vectorize(x, lanes);
    Var dx("dx"), xv("xv");
    patch_x.update().reorder(x, patch_x.rvars(0)[0], dx, y).vectorize(x, lanes);
    // A row of differences for the 5 offsets along x at once: each vector of the centre pixel
    // is loaded once for all five.
    diff.compute_at(patch_x, y).split(x, x, xv, lanes).reorder(xv, dx, x).vectorize(xv).unroll(dx);
    // The blend per block: 3 colours and the weight sum, 4 rows x 4 vectors each.
    blended.compute_at(output, yb).vectorize(x, lanes);
    std::vector<RVar> s = blended.rvars(0);
    blended.update()
        .split(x, x, xv, lanes)
        .reorder(xv, x, y, c, s[0], s[1])
        .vectorize(xv)
        .unroll(x)
        .unroll(y);
    for (Func g : {weight, patch_y}) {
        g.compute_at(blended, s[0]).vectorize(x, lanes);
    }
    patch_y.update().reorder(x, patch_y.rvars(0)[0], y).vectorize(x, lanes);
}
