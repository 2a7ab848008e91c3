// What the two camera pipelines (camera_pipe.cpp, camera_pipe_planar.cpp) share: a 10-bit
// Bayer mosaic read as int32 (`sensor`, saturated at 1023) and its hot pixels clamped to the
// range of their four same-colour neighbours (`denoised`). The Func names are the ones the
// expert schedules (bench/schedules/expert/) refer to.
#pragma once

#include "Halide.h"

namespace bench {

/** `denoised(x, y)` from `mirrored`, the mosaic behind a boundary condition that keeps the
 * Bayer parity (mirroring about the edge pixel). */
inline Halide::Func hot_pixels_suppressed(const Halide::Func &mirrored, const Halide::Var &x,
                                          const Halide::Var &y) {
    using namespace Halide;
    Func sensor("sensor");
    sensor(x, y) = min(cast<int32_t>(mirrored(x, y)), 1023);
    Func denoised("denoised");
    Expr n0 = sensor(x - 2, y), n1 = sensor(x + 2, y), n2 = sensor(x, y - 2), n3 = sensor(x, y + 2);
    denoised(x, y) =
        clamp(sensor(x, y), min(min(n0, n1), min(n2, n3)), max(max(n0, n1), max(n2, n3)));
    return denoised;
}

} // namespace bench
