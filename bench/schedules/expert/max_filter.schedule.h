// Expert schedule of max_filter (bench/generators/max_filter.cpp): a radius-12 disk dilation of
// a 1536x2560x3 float image from a sparse table of vertical max windows.
//
// The output is cut into 2-D tiles small enough that a tile's window levels and table (the
// 5-level stack, 24 rows and columns of halo) stay in L2; everything per tile is computed inside
// it, 16 lanes of float wide. The per-column offsets of the disk are 25-entry tables at root.
// The reduction over the disk's columns runs with x innermost so that it vectorizes.
#pragma once

#include "Expert.h"

inline void schedule_max_filter(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), k("k"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    for (const char *name : {"half_height", "level", "top_offset", "bottom_offset"}) {
        f(name).compute_root();
    }
    Func output = f("output");
    output.tile(x, y, xo, yo, xi, yi, 256, 64)
        .fuse(yo, c, t)
        .reorder(xi, yi, xo, t)
        .parallel(t)
        .vectorize(xi, 16);
    f("table").compute_at(output, xo).reorder(x, y, k, c).vectorize(x, 16);
    for (int j = 1; j < 5; j++) { // window_0 is the clamped input itself: inlined
        f("window_" + std::to_string(j)).compute_at(output, xo).vectorize(x, 16);
    }
    Func maximum = f.unique_prefixed("maximum");
    maximum.compute_at(output, xo).vectorize(x, 16);
    std::vector<RVar> r = maximum.rvars(0);
    maximum.update().reorder(x, r[0]).vectorize(x, 16);
}
