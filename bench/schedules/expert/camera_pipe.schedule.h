// Expert schedule of camera_pipe (bench/generators/camera_pipe.cpp): raw GRBG Bayer to 8-bit
// RGB, 2592x1968, integer arithmetic up to a 1024-entry tone curve.
//
// The tone curve and the colour matrix are tiny tables at root. The rest runs per strip of 32
// output rows, in parallel: the sensor values and the linearised (hot-pixel fixed) samples are
// sliding windows over rows (stored per strip, folded to the 5 and 3 rows their consumers read,
// computed per output row), the demosaic is computed per output row for all three channels,
// and the colour correction and the curve lookup are inlined into the output. 16 lanes of
// int32 (the width of the arithmetic), channels unrolled.
#pragma once

#include "Expert.h"

inline void schedule_camera_pipe(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi");
    f("curve").compute_root().vectorize(Var("i"), 16);
    f("ccm").compute_root();
    Func output = f("output");
    expert::strips_of_rows(output, 3, 32, 16);
    f("demosaiced")
        .compute_at(output, yi)
        .bound_extent(c, 3)
        .reorder(c, x, y)
        .unroll(c)
        .vectorize(x, 16);
    for (const char *name : {"sensor", "linear"}) {
        f(name).store_at(output, yo).compute_at(output, yi).vectorize(x, 16);
    }
}
