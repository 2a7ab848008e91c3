// Bench pipelines (median_3x3 and resize_bicubic of the held-out set too) vs plain C++
// references: each pipeline is built twice (Mullapudi2016, and the bench reference scheduler
// that computes everything at root; synthetic_200 only the latter, see CMakeLists.txt) and both
// outputs must match an independent C++ implementation: integers exactly, floats within 1e-4 of
// max(|ref|, 1).
#include <catch2/catch.hpp>

#include "BenchTestUtil.h"
#include "HalideBuffer.h"

#include "bench_test_bilateral_guided_upsampling_m16.h"
#include "bench_test_bilateral_guided_upsampling_root.h"
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
#include "bench_test_median_3x3_m16.h"
#include "bench_test_median_3x3_root.h"
#include "bench_test_resize_bicubic_m16.h"
#include "bench_test_resize_bicubic_root.h"
#include "bench_test_stencil_chain_m16.h"
#include "bench_test_stencil_chain_root.h"
#include "bench_test_synthetic_200_root.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using Halide::Runtime::Buffer;
using sextant::bench_test::clampi;
using sextant::bench_test::fill;
using sextant::bench_test::mismatches;

TEST_CASE("box_blur matches a C++ 3x3 box filter", "[bench]") {
    const int w = 1536, h = 2560;
    Buffer<uint16_t> in(w, h), want(w, h), m16(w, h), root(w, h);
    fill(in, 1);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint32_t s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    s += in(clampi(x + dx, 0, w - 1), clampi(y + dy, 0, h - 1));
            want(x, y) = uint16_t((s + 4) / 9);
        }
    }
    REQUIRE(box_blur_m16(in, m16) == 0);
    REQUIRE(box_blur_root(in, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("median_3x3 matches a C++ sort of each 3x3 window", "[bench]") {
    const int w = 4096, h = 3072;
    Buffer<uint16_t> in(w, h, 3), want(w, h, 3), m16(w, h, 3), root(w, h, 3);
    fill(in, 7);
    auto mirror = [](int v, int n) { return v < 0 ? -v : v >= n ? 2 * n - 2 - v : v; };
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                uint16_t window[9];
                int k = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        window[k++] = in(mirror(x + dx, w), mirror(y + dy, h), c);
                std::nth_element(window, window + 4, window + 9);
                want(x, y, c) = window[4];
            }
    REQUIRE(median_3x3_m16(in, m16) == 0);
    REQUIRE(median_3x3_root(in, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("resize_bicubic matches a C++ fixed-point Catmull-Rom resampler", "[bench]") {
    const int w = 2048, h = 1536, ow = 3584, oh = 2688;
    Buffer<uint8_t> in(w, h, 3), want(ow, oh, 3), m16(ow, oh, 3), root(ow, oh, 3);
    fill(in, 8);
    // Output v sits at source (8v - 3) / 14: first tap one left of the floor, 14 phases.
    auto floor_div = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    auto first = [&](int v) { return floor_div(8 * v - 3, 14) - 1; };
    auto phase = [&](int v) { return 8 * v - 3 - 14 * floor_div(8 * v - 3, 14); };
    auto kernel = [](int p, int t) {
        const float d = std::fabs(float(p) / 14.0f + 1.0f - float(t));
        const float k = d < 1.0f   ? (1.5f * d - 2.5f) * d * d + 1.0f
                        : d < 2.0f ? ((-0.5f * d + 2.5f) * d - 4.0f) * d + 2.0f
                                   : 0.0f;
        return int32_t(std::nearbyint(16384.0f * k));
    };
    std::vector<int16_t> vertical(size_t(w) * oh * 3);
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < w; x++) {
                int32_t s = 0;
                for (int j = 0; j < 4; j++)
                    s += kernel(phase(y), j) * in(x, clampi(first(y) + j, 0, h - 1), c);
                vertical[(size_t(c) * oh + y) * w + x] = int16_t((s + 128) >> 8);
            }
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                int32_t s = 0;
                for (int i = 0; i < 4; i++)
                    s += kernel(phase(x), i) *
                         vertical[(size_t(c) * oh + y) * w + clampi(first(x) + i, 0, w - 1)];
                want(x, y, c) = uint8_t(clampi((s + (1 << 19)) >> 20, 0, 255));
            }
    REQUIRE(resize_bicubic_m16(in, m16) == 0);
    REQUIRE(resize_bicubic_root(in, root) == 0);
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
    for (int i = 0; i < 256; i++)
        lut[i] = int(std::clamp<int64_t>(((cdf[i] - cdf_min) * 255 + den / 2) / den, 0, 255));
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
            for (int y = 1; y < h; y++)
                want(x, y, c) = alpha * want(x, y, c) + a * want(x, y - 1, c);
            for (int y = h - 2; y >= 0; y--)
                want(x, y, c) = alpha * want(x, y, c) + a * want(x, y + 1, c);
        }
        for (int y = 0; y < h; y++) {
            for (int x = 1; x < w; x++)
                want(x, y, c) = alpha * want(x, y, c) + a * want(x - 1, y, c);
            for (int x = w - 2; x >= 0; x--)
                want(x, y, c) = alpha * want(x, y, c) + a * want(x + 1, y, c);
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
            for (int x = 0; x < n; x++)
                row[x] += av * b(x, k);
        }
        for (int x = 0; x < n; x++)
            want(x, y) = row[x];
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
                for (int i = 0; i < ci; i++)
                    s += filter(i, kx, ky, c) * in(i, x + kx, y + ky, b);
        want(c, x, y, b) = std::max(s, 0.0f);
    });
    REQUIRE(conv_relu_m16(in, filter, bias, m16) == 0);
    REQUIRE(conv_relu_root(in, filter, bias, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

namespace {

// A dense float array over cells [x0, x0 + nx) x [y0, y0 + ny) x [z0, z0 + nz), `ch` values
// per cell.
struct CellArray {
    int x0, y0, z0, nx, ny, nz, ch;
    std::vector<float> v;
    CellArray(int x0, int y0, int z0, int nx, int ny, int nz, int ch)
        : x0(x0), y0(y0), z0(z0), nx(nx), ny(ny), nz(nz), ch(ch), v(size_t(nx) * ny * nz * ch) {}
    float &operator()(int x, int y, int z, int k) {
        return v[((size_t(z - z0) * ny + (y - y0)) * nx + (x - x0)) * ch + k];
    }
};

// Bilateral guided upsampling (8x upsampling, 8x8 low-res pixels per cell, 8 luminance bins),
// written directly: 5-D statistics grid, 1-2-1 blurs, then each cell's 4x4 ridge system solved
// by Gaussian elimination with partial pivoting in double (not the pipeline's Cholesky).
Buffer<float> bilateral_guided_upsampling_reference(const Buffer<float> &low_in,
                                                    const Buffer<float> &low_out,
                                                    const Buffer<float> &high_in, float lambda) {
    const int cell = 8, bins = 8, lw = low_in.width(), lh = low_in.height();
    const int w = high_in.width(), h = high_in.height();
    const float to_grid = 1.0f / 64.0f;
    auto luminance = [&](const Buffer<float> &b, int x, int y) {
        const float l = 0.299f * b(x, y, 0) + 0.587f * b(x, y, 1) + 0.114f * b(x, y, 2);
        return std::min(std::max(l, 0.0f), 1.0f) * float(bins);
    };
    auto cell_of = [&](int p) { return int(std::floor((float(p) + 0.5f) * to_grid - 0.5f)); };
    // Cells the slice reads, then one more each side for the blurs.
    const int cx0 = cell_of(0), cx1 = cell_of(w - 1) + 1, cy0 = cell_of(0),
              cy1 = cell_of(h - 1) + 1;
    CellArray grid(cx0 - 1, cy0 - 1, -1, cx1 - cx0 + 3, cy1 - cy0 + 3, bins + 3, 28);
    for (int z = -1; z <= bins + 1; z++) {
        for (int cy = cy0 - 1; cy <= cy1 + 1; cy++) {
            for (int cx = cx0 - 1; cx <= cx1 + 1; cx++) {
                for (int ry = 0; ry < cell; ry++) {
                    for (int rx = 0; rx < cell; rx++) {
                        const int px = clampi(cx * cell + rx, 0, lw - 1);
                        const int py = clampi(cy * cell + ry, 0, lh - 1);
                        const float s[7] = {
                            low_in(px, py, 0),  low_in(px, py, 1),  low_in(px, py, 2), 1.0f,
                            low_out(px, py, 0), low_out(px, py, 1), low_out(px, py, 2)};
                        const float wt =
                            std::max(0.0f, 1.0f - std::fabs(luminance(low_in, px, py) - float(z)));
                        for (int i = 0; i < 4; i++)
                            for (int j = 0; j < 7; j++)
                                grid(cx, cy, z, i * 7 + j) += wt * s[i] * s[j];
                    }
                }
            }
        }
    }
    auto blur = [&](CellArray &src, int x0, int x1, int y0, int y1, int z0, int z1, int dx, int dy,
                    int dz) {
        CellArray dst(x0, y0, z0, x1 - x0 + 1, y1 - y0 + 1, z1 - z0 + 1, 28);
        for (int z = z0; z <= z1; z++)
            for (int y = y0; y <= y1; y++)
                for (int x = x0; x <= x1; x++)
                    for (int k = 0; k < 28; k++)
                        dst(x, y, z, k) = (src(x - dx, y - dy, z - dz, k) + 2.0f * src(x, y, z, k) +
                                           src(x + dx, y + dy, z + dz, k)) *
                                          0.25f;
        return dst;
    };
    CellArray bz = blur(grid, cx0 - 1, cx1 + 1, cy0 - 1, cy1 + 1, 0, bins, 0, 0, 1);
    CellArray bx = blur(bz, cx0, cx1, cy0 - 1, cy1 + 1, 0, bins, 1, 0, 0);
    CellArray by = blur(bx, cx0, cx1, cy0, cy1, 0, bins, 0, 1, 0);

    // Per cell: M (4x3, stored k = 3 row + column) solving (A + lambda I) M = B.
    CellArray affine(cx0, cy0, 0, cx1 - cx0 + 1, cy1 - cy0 + 1, bins + 1, 12);
    for (int z = 0; z <= bins; z++) {
        for (int cy = cy0; cy <= cy1; cy++) {
            for (int cx = cx0; cx <= cx1; cx++) {
                double m[4][7]; // [A + lambda I | B], A symmetric from its upper triangle
                for (int i = 0; i < 4; i++) {
                    for (int j = 0; j < 7; j++) {
                        const int a = j < 4 ? std::min(i, j) : i, b = j < 4 ? std::max(i, j) : j;
                        m[i][j] = by(cx, cy, z, a * 7 + b) + (i == j ? lambda : 0.0f);
                    }
                }
                for (int col = 0; col < 4; col++) {
                    int pivot = col;
                    for (int i = col + 1; i < 4; i++)
                        if (std::fabs(m[i][col]) > std::fabs(m[pivot][col])) pivot = i;
                    for (int j = 0; j < 7; j++)
                        std::swap(m[col][j], m[pivot][j]);
                    for (int i = 0; i < 4; i++) {
                        if (i == col) continue;
                        const double f = m[i][col] / m[col][col];
                        for (int j = 0; j < 7; j++)
                            m[i][j] -= f * m[col][j];
                    }
                }
                for (int i = 0; i < 4; i++)
                    for (int c = 0; c < 3; c++)
                        affine(cx, cy, z, 3 * i + c) = float(m[i][4 + c] / m[i][i]);
            }
        }
    }

    Buffer<float> out(w, h, 3);
    auto mix = [](float u, float v, float s) { return u * (1.0f - s) + v * s; };
    for (int y = 0; y < h; y++) {
        const float gy = (float(y) + 0.5f) * to_grid - 0.5f;
        const int y0 = int(std::floor(gy));
        const float wy = gy - float(y0);
        for (int x = 0; x < w; x++) {
            const float gx = (float(x) + 0.5f) * to_grid - 0.5f, gz = luminance(high_in, x, y);
            const int x0 = int(std::floor(gx)), z0 = clampi(int(std::floor(gz)), 0, bins - 1);
            const float wx = gx - float(x0), wz = gz - float(z0);
            float coef[12];
            for (int k = 0; k < 12; k++) {
                auto g = [&](int dx, int dy, int dz) {
                    return affine(x0 + dx, y0 + dy, z0 + dz, k);
                };
                const float lo =
                    mix(mix(g(0, 0, 0), g(1, 0, 0), wx), mix(g(0, 1, 0), g(1, 1, 0), wx), wy);
                const float hi =
                    mix(mix(g(0, 0, 1), g(1, 0, 1), wx), mix(g(0, 1, 1), g(1, 1, 1), wx), wy);
                coef[k] = mix(lo, hi, wz);
            }
            for (int c = 0; c < 3; c++)
                out(x, y, c) = coef[c] * high_in(x, y, 0) + coef[3 + c] * high_in(x, y, 1) +
                               coef[6 + c] * high_in(x, y, 2) + coef[9 + c];
        }
    }
    return out;
}

// synthetic_200's stage rule (bench/generators/synthetic_200.cpp): s % 8 cycles through
// average with the input, x stencil, squash, y stencil, blend, diagonal stencil, |difference|,
// x max; every 40th stage (from 20) is the 5-D lift, every 50th (from 35) a column mean, then a
// row mean, alternately.
enum class SynthKind {
    Average,
    StencilX,
    Squash,
    StencilY,
    Blend,
    StencilDiag,
    AbsDiff,
    MaxX,
    Lift5D,
    MeanColumns,
    MeanRows
};

SynthKind synth_kind(int s) {
    if (s % 40 == 20) return SynthKind::Lift5D;
    if (s % 50 == 35) return (s / 50) % 2 == 0 ? SynthKind::MeanColumns : SynthKind::MeanRows;
    return SynthKind(s % 8);
}

// synthetic_200 in plain C++: 189 stages after the input, each on the whole image with
// coordinates clamped to it. The averages' partner is the input; the others' is at most 8
// stages back, so only the input and the last nine stages are kept.
Buffer<float> synthetic_200_reference(const Buffer<float> &in) {
    const int w = in.width(), h = in.height(), stages = 189, keep = 9;
    std::vector<float> input(size_t(w) * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            input[size_t(y) * w + x] = in(x, y);
    std::vector<std::vector<float>> ring(keep, input);
    auto img = [&](int s) -> std::vector<float> & { return ring[s % keep]; };
    for (int s = 1; s <= stages; s++) {
        const SynthKind kind = synth_kind(s);
        const std::vector<float> &p = img(s - 1);
        const std::vector<float> &q =
            kind == SynthKind::Average ? input : img(std::max(0, s - 2 - s % 7));
        std::vector<float> &f = img(s);
        auto P = [&](int x, int y) {
            return p[size_t(clampi(y, 0, h - 1)) * w + clampi(x, 0, w - 1)];
        };
        auto Q = [&](int x, int y) {
            return q[size_t(clampi(y, 0, h - 1)) * w + clampi(x, 0, w - 1)];
        };
        std::vector<float> total(kind == SynthKind::MeanColumns ? w : h, 0.0f);
        if (kind == SynthKind::MeanColumns)
            for (int x = 0; x < w; x++)
                for (int y = 0; y < h; y++)
                    total[x] += P(x, y);
        if (kind == SynthKind::MeanRows)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    total[y] += P(x, y);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                const float a = P(x, y), b = Q(x, y);
                float v = 0.0f;
                switch (kind) {
                case SynthKind::Average:
                    v = 0.5f * (a + b);
                    break;
                case SynthKind::StencilX:
                    v = (P(x - 1, y) + 2.0f * a + P(x + 1, y)) * 0.25f;
                    break;
                case SynthKind::Squash:
                    v = a * (0.5f + 0.25f * a) + 0.125f;
                    break;
                case SynthKind::StencilY:
                    v = (P(x, y - 1) + 2.0f * a + P(x, y + 1)) * 0.25f;
                    break;
                case SynthKind::Blend:
                    v = 0.25f * std::min(a, b) + 0.75f * std::max(a, b);
                    break;
                case SynthKind::StencilDiag:
                    v = (P(x - 1, y + 1) + 2.0f * a + P(x + 1, y - 1)) * 0.25f;
                    break;
                case SynthKind::AbsDiff:
                    v = 0.5f * std::fabs(a - b) + 0.25f * (a + b);
                    break;
                case SynthKind::MaxX:
                    v = 0.5f * (a + std::max({Q(x - 1, y), b, Q(x + 1, y)}));
                    break;
                case SynthKind::Lift5D:
                    for (int r = 0; r < 2; r++)
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++)
                                v += (r == 0 ? P(x + dx, y + dy) : Q(x + dx, y + dy)) *
                                     (1.0f / 18.0f);
                    break;
                case SynthKind::MeanColumns:
                    v = 0.5f * b + 0.25f * a + 0.25f * (1.0f - total[x] / float(h));
                    break;
                case SynthKind::MeanRows:
                    v = 0.5f * b + 0.25f * a + 0.25f * (1.0f - total[y] / float(w));
                    break;
                }
                f[size_t(y) * w + x] = v;
            }
        }
    }
    Buffer<float> out(w, h);
    out.for_each_element([&](int x, int y) { out(x, y) = img(stages)[size_t(y) * w + x]; });
    return out;
}

} // namespace

TEST_CASE("bilateral_guided_upsampling matches a C++ BGU with a Gaussian-elimination solve",
          "[bench]") {
    const int w = 1536, h = 2560, lw = w / 8, lh = h / 8;
    const float lambda = 1e-2f; // the generator's estimate
    Buffer<float> low_in(lw, lh, 3), low_out(lw, lh, 3), high_in(w, h, 3);
    Buffer<float> m16(w, h, 3), root(w, h, 3);
    fill(low_in, 10);
    fill(high_in, 11);
    // The operator to learn: a global affine colour transform, plus a small pseudo-random part.
    fill(low_out, 12);
    low_out.for_each_element([&](int x, int y, int c) {
        const float r = low_in(x, y, 0), g = low_in(x, y, 1), b = low_in(x, y, 2);
        const float affine = c == 0   ? 0.6f * r + 0.3f * g + 0.1f
                             : c == 1 ? 0.8f * g - 0.2f * b + 0.2f
                                      : 0.5f * b + 0.25f * r;
        low_out(x, y, c) = affine + 0.05f * low_out(x, y, c);
    });
    Buffer<float> want = bilateral_guided_upsampling_reference(low_in, low_out, high_in, lambda);
    REQUIRE(bilateral_guided_upsampling_m16(low_in, low_out, high_in, lambda, m16) == 0);
    REQUIRE(bilateral_guided_upsampling_root(low_in, low_out, high_in, lambda, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("synthetic_200 matches its 189 stages in C++", "[bench]") {
    // Smaller and non-square (the estimates say 1024x1024): keeps the test short and catches
    // x/y mix-ups in the row and column means.
    const int w = 640, h = 480;
    Buffer<float> in(w, h), root(w, h);
    fill(in, 13);
    Buffer<float> want = synthetic_200_reference(in);
    REQUIRE(synthetic_200_root(in, root) == 0);
    CHECK(mismatches(root, want) == 0);
}
