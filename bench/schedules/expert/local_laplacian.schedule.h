// Expert schedule of local_laplacian (bench/generators/local_laplacian.cpp): 8 remapped copies
// of the luminance, each decomposed into an 8-level Laplacian pyramid, blended per coefficient
// by the input's Gaussian pyramid and collapsed; 1536x2560x3 16-bit in, float out.
//
// The luminance and every pyramid level are computed at root, once each. A level's horizontal
// pass (NAME_dx) is a sliding window over rows of its level: stored per reference intensity (or
// per strip), computed per row, so a level reads its finer level once and the pass never
// leaves L1/L2. The remapping (an exp per reference) is inlined into the first level's
// horizontal pass (it is also read by the finest blend, so no loop but root could hold it, and
// at root it would be 126 MB): the full-resolution remapped images are never stored. The
// 8-reference levels run their references in parallel; the others split rows into parallel
// strips. The blend and the upsampling filters are inlined: each is a few loads. The finest
// collapsed level (out_g_0) is computed per 32-row strip of the output, which inlines the
// colour rescale with the channels unrolled. 16 float lanes throughout.
#pragma once

#include "Expert.h"

#include <string>

inline void schedule_local_laplacian(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), k("k"), yo("yo"), yi("yi");
    f("gray")
        .compute_root()
        .split(y, yo, yi, 32, TailStrategy::GuardWithIf)
        .parallel(yo)
        .vectorize(x, 16);
    for (int l = 1; f.has("g_pyr_" + std::to_string(l)); l++) {
        const std::string n = std::to_string(l);
        Func g = f("g_pyr_" + n);
        g.compute_root().reorder(x, y, k).parallel(k).vectorize(x, 16);
        f("g_pyr_" + n + "_dx").store_at(g, k).compute_at(g, y).vectorize(x, 16);
        Func in = f("in_pyr_" + n);
        in.compute_root()
            .split(y, yo, yi, 16, TailStrategy::GuardWithIf)
            .parallel(yo)
            .vectorize(x, 16);
        f("in_pyr_" + n + "_dx").store_at(in, yo).compute_at(in, yi).vectorize(x, 16);
    }
    for (int l = 1; f.has("out_g_" + std::to_string(l)); l++) {
        f("out_g_" + std::to_string(l))
            .compute_root()
            .split(y, yo, yi, 16, TailStrategy::GuardWithIf)
            .parallel(yo)
            .vectorize(x, 16);
    }
    Func output = f("output");
    expert::strips_of_rows(output, 3, 32, 16);
    f("out_g_0").compute_at(output, yo).vectorize(x, 16);
}
