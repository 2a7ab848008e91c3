// Expert schedule of harris (bench/generators/harris.cpp): Sobel gradients of the luminance,
// their products summed over 3x3 windows, the corner response, float, 1536x2560.
//
// Every intermediate is a sliding window over rows inside a strip of the output: stored per
// strip (folded to the 3 rows its consumer reads), computed per output row. Each value is
// computed once, and the rows live in L1/L2 (a 1536-float row is 6 KiB; ~20 rows in flight).
// 20 strips of 128 rows: both cores busy, warm-up 2-4 rows per strip. 16 float lanes.
#pragma once

#include "Expert.h"

inline void schedule_harris(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func output = f("output");
    output.split(y, yo, yi, 128, TailStrategy::ShiftInwards).parallel(yo).vectorize(x, 16);
    for (const char *name : {"gray", "gx", "gy", "ixx", "iyy", "ixy"}) {
        f(name).store_at(output, yo).compute_at(output, yi).vectorize(x, 16);
    }
}
