// What the bench pipeline tests share: pseudo-random inputs and the output comparison
// (integers exactly, floats within 1e-4 of max(|reference|, 1)).
#pragma once

#include "HalideBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>

namespace sextant::bench_test {

/** Fills `b` from a seeded stream: floats in [0, 1), integers over their whole range. */
template <typename T> void fill(Halide::Runtime::Buffer<T> &b, uint32_t seed) {
    std::mt19937 rng(seed);
    b.for_each_value([&](T &v) {
        if constexpr (std::is_floating_point_v<T>) {
            v = T((rng() >> 8) * (1.0 / 16777216.0));
        } else {
            v = T(rng());
        }
    });
}

/** Number of elements of `got` that differ from `want` (integers exactly; floats by more than
 * 1e-4 * max(|want|, 1)). */
template <typename T>
size_t mismatches(const Halide::Runtime::Buffer<T> &got, const Halide::Runtime::Buffer<T> &want) {
    size_t bad = 0;
    got.for_each_element([&](const int *pos) {
        const T g = got(pos), w = want(pos);
        if constexpr (std::is_floating_point_v<T>) {
            if (!(std::fabs(double(g) - double(w)) <= 1e-4 * std::max(std::fabs(double(w)), 1.0)))
                bad++;
        } else {
            if (g != w) bad++;
        }
    });
    return bad;
}

inline int clampi(int v, int lo, int hi) {
    return std::min(std::max(v, lo), hi);
}

} // namespace sextant::bench_test
