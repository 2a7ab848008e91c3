// Expert schedule of stencil_chain and stencil_chain_32 (bench/generators/stencil_chain.cpp):
// a chain of 3x3 stencils, uint16 in and out, uint32 sums.
//
// Every stage is a sliding window over rows inside a strip of the output: stored per strip
// (Halide folds each to a few rows), computed per output row, so each stage computes each row
// once, reads only rows still in L1/L2, and nothing goes to DRAM but the input and the output.
// The price is a warm-up per strip (stage k starts `stages - k` rows early), so strips are tall:
// 16 strips of 160 rows over 2560 keep it near 10% for 32 stages and both cores busy. Rows are
// 1536 wide; 32 lanes of uint16 fill an AVX-512 register.
#pragma once

#include "Expert.h"

inline void schedule_stencil_chain(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func output = f("output");
    output.split(y, yo, yi, 160, TailStrategy::ShiftInwards).parallel(yo).vectorize(x, 32);
    for (int k = 0; f.has("stage_" + std::to_string(k)); k++) {
        f("stage_" + std::to_string(k))
            .store_at(output, yo)
            .compute_at(output, yi)
            .vectorize(x, 32);
    }
}
