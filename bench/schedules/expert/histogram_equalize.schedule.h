// Expert schedule of histogram_equalize (bench/generators/histogram_equalize.cpp): a luma
// histogram of a 1536x2560 8-bit RGB image, its cumulative sum, a lookup table, the colours
// rescaled by new over old luma.
//
// The histogram is the serial part: split its image-wide reduction into 16 bands of rows and
// factor it (rfactor), so each band fills a histogram of its own in parallel and a 256-entry
// merge adds them. The luma is computed once at root (it is read by the histogram and by the
// output), rows in parallel, 32 lanes. The scan, its minimum and the table are tiny, at root.
// The output runs strips of rows in parallel, 16 lanes (int32 arithmetic), channels unrolled.
#pragma once

#include "Expert.h"

inline void schedule_histogram_equalize(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), i("i"), u("u"), yo("yo"), yi("yi");
    f("luma")
        .compute_root()
        .split(y, yo, yi, 64, TailStrategy::GuardWithIf)
        .parallel(yo)
        .vectorize(x, 32);
    Func hist = f("hist");
    hist.compute_root();
    std::vector<RVar> r = hist.rvars(0);
    RVar ro("ro"), ri("ri");
    Func bands = hist.update().split(r[1], ro, ri, 160, TailStrategy::GuardWithIf).rfactor(ro, u);
    bands.compute_root().vectorize(i, 16).update().parallel(u);
    hist.update().vectorize(i, 16);
    for (const char *name : {"cdf", "lut"}) {
        f(name).compute_root();
    }
    f.unique_prefixed("minimum").compute_root();
    Func output = f("output");
    expert::strips_of_rows(output, 3, 64, 16);
}
