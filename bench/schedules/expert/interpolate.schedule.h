// Expert schedule of interpolate (bench/generators/interpolate.cpp): push-pull interpolation of
// premultiplied RGBA floats over a 10-level pyramid, 1536x2560.
//
// Each pyramid level's push (down_L) and the coarse levels' pull (up_L, L >= 2) are computed at
// root, rows in parallel, 16 float lanes along x with the 4 channels unrolled inside, so a level
// is read as a stream and the 2x2 and 2-tap filters between levels (down_x_L, up_x_L,
// coarse_L) stay inlined: each costs two loads. The two finest pull levels, up_1 and up_0, are
// computed per 32-row strip of the output, so the two largest buffers of the pull never reach
// DRAM: only down_0 (the premultiplied input, inlined) and down_1 are read from memory there.
#pragma once

#include "Expert.h"

#include <string>

inline void schedule_interpolate(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi");
    auto by_rows = [&](Func g) {
        g.compute_root().bound(c, 0, 4).reorder(c, x, y).unroll(c).vectorize(x, 16).parallel(y, 4);
    };
    for (int l = 1; f.has("down_" + std::to_string(l)); l++) {
        by_rows(f("down_" + std::to_string(l)));
    }
    for (int l = 2; f.has("up_" + std::to_string(l)); l++) {
        by_rows(f("up_" + std::to_string(l)));
    }
    Func output = f("output");
    expert::strips_of_rows(output, 3, 32, 16);
    for (const char *name : {"up_1", "up_0"}) {
        f(name)
            .compute_at(output, yo)
            .bound_extent(c, 4)
            .reorder(c, x, y)
            .unroll(c)
            .vectorize(x, 16);
    }
}
