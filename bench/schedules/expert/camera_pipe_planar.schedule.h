// Expert schedule of camera_pipe_planar (bench/generators/camera_pipe_planar.cpp): raw GRBG
// Bayer to sharpened 8-bit RGB through a demosaic on the four half-resolution colour planes.
//
// The tone curve and the blended colour matrix are tiny tables at root. The four hot-pixel-fixed
// planes are deinterleaved at root (20 MiB, parallel over rows, the four planes unrolled).
// Everything else runs per strip of 32 output rows, in parallel: the demosaic's
// half-resolution planes (greens at the red and blue sites, colour differences, red and blue at
// the other sites) over the strip's 17-18 half rows; the interleaving back to full resolution,
// the levels and the colour matrix inlined into the tone-curved image, computed for the strip
// plus the sharpen's row above and below; the sharpen's vertical blur per strip and its
// horizontal blur inlined into the output. 8 lanes of int32 for the half-resolution work, 16
// for the full-resolution stages, channels unrolled.
//
// Why the root deinterleave: with it inside the strip too (everything per strip) the schedule
// runs 35 ms with glibc's trim off but 85-100 ms with the default allocator (33,000 page faults
// a run): the strip's heap buffers, ~3.4 MiB live at once, exceed the trim threshold (twice the
// largest buffer, the 1 MiB `curved` strip), so every strip's free returns them to the kernel.
// The 20 MiB root buffer is mmap'd once a run and raises the threshold to 40 MiB: 34.6 ms,
// ~600 faults a run (`sextant-time --time --variant default --variant trap_off:...`).
#pragma once

#include "Expert.h"

inline void schedule_camera_pipe_planar(const expert::Funcs &f) {
    using namespace Halide;
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi"), i("i");
    f("curve").compute_root().vectorize(i, 16);
    f("ccm").compute_root();
    Func output = f("output");
    expert::strips_of_rows(output, 3, 32, 16);
    f("deinterleaved")
        .compute_root()
        .parallel(y)
        .bound(c, 0, 4)
        .reorder(c, x, y)
        .unroll(c)
        .vectorize(x, 8);
    for (const char *name :
         {"g_r", "g_b", "rg", "bg", "r_gr", "b_gr", "r_gb", "b_gb", "r_b", "b_r"}) {
        f(name).compute_at(output, yo).vectorize(x, 8);
    }
    f("curved").compute_at(output, yo).bound(c, 0, 3).reorder(c, x, y).unroll(c).vectorize(x, 16);
    f("blur_y").compute_at(output, yo).bound(c, 0, 3).reorder(c, x, y).unroll(c).vectorize(x, 16);
}
