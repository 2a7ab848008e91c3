// Bench pipelines vs plain C++ references: each pipeline is built twice (Mullapudi2016, and
// the bench reference scheduler that computes everything at root) and both outputs must match
// an independent C++ implementation: integers exactly, floats within 1e-4 of max(|ref|, 1).
#include <catch2/catch.hpp>

#include "HalideBuffer.h"

#include "bench_test_box_blur_m16.h"
#include "bench_test_box_blur_root.h"
#include "bench_test_conv_relu_m16.h"
#include "bench_test_conv_relu_root.h"
#include "bench_test_histogram_equalize_m16.h"
#include "bench_test_histogram_equalize_root.h"
#include "bench_test_iir_blur_m16.h"
#include "bench_test_iir_blur_root.h"
#include "bench_test_matmul_m16.h"
#include "bench_test_matmul_root.h"
#include "bench_test_stencil_chain_m16.h"
#include "bench_test_stencil_chain_root.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using Halide::Runtime::Buffer;

template <typename T>
void fill(Buffer<T> &b, uint32_t seed) {
    std::mt19937 rng(seed);
    b.for_each_value([&](T &v) {
        if constexpr (std::is_floating_point_v<T>) {
            v = T((rng() >> 8) * (1.0 / 16777216.0));
        } else {
            v = T(rng());
        }
    });
}

// Number of elements of `got` that differ from `want` (integers exactly; floats by more than
// 1e-4 * max(|want|, 1)).
template <typename T>
size_t mismatches(const Buffer<T> &got, const Buffer<T> &want) {
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

int clampi(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }

}  // namespace

TEST_CASE("box_blur matches a C++ 3x3 box filter", "[bench]") {
    const int w = 1536, h = 2560;
    Buffer<uint16_t> in(w, h), want(w, h), m16(w, h), root(w, h);
    fill(in, 1);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint32_t s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) s += in(clampi(x + dx, 0, w - 1), clampi(y + dy, 0, h - 1));
            want(x, y) = uint16_t((s + 4) / 9);
        }
    }
    REQUIRE(box_blur_m16(in, m16) == 0);
    REQUIRE(box_blur_root(in, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("stencil_chain matches ten C++ 1-2-1 stencils on unbounded intermediates", "[bench]") {
    const int w = 1536, h = 2560, stages = 10, m = stages;
    Buffer<uint16_t> in(w, h), m16(w, h), root(w, h);
    fill(in, 2);
    // Intermediates are defined beyond the image (only the input is clamped), so each stage is
    // computed on the image plus a margin that shrinks by one pixel per stage.
    const int pw = w + 2 * m, ph = h + 2 * m;
    std::vector<uint16_t> prev(size_t(pw) * ph), next(prev.size());
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            prev[size_t(y) * pw + x] = in(clampi(x - m, 0, w - 1), clampi(y - m, 0, h - 1));
    for (int s = 1; s <= stages; s++) {
        for (int y = s; y < ph - s; y++) {
            for (int x = s; x < pw - s; x++) {
                uint32_t sum = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        sum += uint32_t(prev[size_t(y + dy) * pw + x + dx]) * (dx == 0 ? 2 : 1) *
                               (dy == 0 ? 2 : 1);
                next[size_t(y) * pw + x] = uint16_t((sum + 8) >> 4);
            }
        }
        std::swap(prev, next);
    }
    Buffer<uint16_t> want(w, h);
    want.for_each_element([&](int x, int y) { want(x, y) = prev[size_t(y + m) * pw + x + m]; });
    REQUIRE(stencil_chain_m16(in, m16) == 0);
    REQUIRE(stencil_chain_root(in, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("histogram_equalize matches a C++ luma histogram equalisation", "[bench]") {
    const int w = 1536, h = 2560;
    Buffer<uint8_t> in(w, h, 3), want(w, h, 3), m16(w, h, 3), root(w, h, 3);
    fill(in, 3);
    Buffer<int32_t> luma(w, h);
    std::vector<int64_t> hist(256, 0);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            luma(x, y) = (77 * in(x, y, 0) + 150 * in(x, y, 1) + 29 * in(x, y, 2) + 128) >> 8;
            hist[luma(x, y)]++;
        }
    }
    std::vector<int64_t> cdf(256);
    int64_t run = 0, total = int64_t(w) * h, cdf_min = total;
    for (int i = 0; i < 256; i++) {
        cdf[i] = run += hist[i];
        if (cdf[i] > 0) cdf_min = std::min(cdf_min, cdf[i]);
    }
    std::vector<int> lut(256);
    const int64_t den = std::max<int64_t>(total - cdf_min, 1);
    for (int i = 0; i < 256; i++) lut[i] = int(std::clamp<int64_t>(((cdf[i] - cdf_min) * 255 + den / 2) / den, 0, 255));
    want.for_each_element([&](int x, int y, int c) {
        const int old_l = luma(x, y), new_l = lut[old_l];
        const int v = old_l == 0 ? new_l : (in(x, y, c) * new_l + old_l / 2) / old_l;
        want(x, y, c) = uint8_t(clampi(v, 0, 255));
    });
    REQUIRE(histogram_equalize_m16(in, m16) == 0);
    REQUIRE(histogram_equalize_root(in, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("iir_blur matches C++ first-order recursive filters", "[bench]") {
    const int w = 1536, h = 2560;
    const float alpha = 0.1f, a = 1.0f - alpha;
    Buffer<float> in(w, h, 3), want(w, h, 3), m16(w, h, 3), root(w, h, 3);
    fill(in, 4);
    want.copy_from(in);
    for (int c = 0; c < 3; c++) {
        for (int x = 0; x < w; x++) {
            for (int y = 1; y < h; y++) want(x, y, c) = alpha * want(x, y, c) + a * want(x, y - 1, c);
            for (int y = h - 2; y >= 0; y--) want(x, y, c) = alpha * want(x, y, c) + a * want(x, y + 1, c);
        }
        for (int y = 0; y < h; y++) {
            for (int x = 1; x < w; x++) want(x, y, c) = alpha * want(x, y, c) + a * want(x - 1, y, c);
            for (int x = w - 2; x >= 0; x--) want(x, y, c) = alpha * want(x, y, c) + a * want(x + 1, y, c);
        }
    }
    REQUIRE(iir_blur_m16(in, alpha, m16) == 0);
    REQUIRE(iir_blur_root(in, alpha, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("matmul matches a C++ triple loop", "[bench]") {
    const int n = 512;
    Buffer<float> a(n, n), b(n, n), want(n, n), m16(n, n), root(n, n);
    fill(a, 5);
    fill(b, 6);
    for (int y = 0; y < n; y++) {
        std::vector<float> row(n, 0.0f);
        for (int k = 0; k < n; k++) {
            const float av = a(k, y);
            for (int x = 0; x < n; x++) row[x] += av * b(x, k);
        }
        for (int x = 0; x < n; x++) want(x, y) = row[x];
    }
    REQUIRE(matmul_m16(a, b, m16) == 0);
    REQUIRE(matmul_root(a, b, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("conv_relu matches a C++ direct convolution with bias and ReLU", "[bench]") {
    const int ci = 64, co = 64, w = 56, h = 56, n = 2;
    Buffer<float> in(ci, w + 2, h + 2, n), filter(ci, 3, 3, co), bias(co);
    Buffer<float> want(co, w, h, n), m16(co, w, h, n), root(co, w, h, n);
    fill(in, 7);
    fill(filter, 8);
    fill(bias, 9);
    want.for_each_element([&](int c, int x, int y, int b) {
        float s = bias(c);
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++)
                for (int i = 0; i < ci; i++) s += filter(i, kx, ky, c) * in(i, x + kx, y + ky, b);
        want(c, x, y, b) = std::max(s, 0.0f);
    });
    REQUIRE(conv_relu_m16(in, filter, bias, m16) == 0);
    REQUIRE(conv_relu_root(in, filter, bias, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}
