// More bench pipelines vs plain C++ references (test_bench_pipelines.cpp holds the first ones),
// each built with Mullapudi2016 and with the bench reference scheduler (everything at root).
#include <catch2/catch.hpp>

#include "BenchTestUtil.h"
#include "HalideBuffer.h"

#include "bench_test_chroma_420_m16.h"
#include "bench_test_chroma_420_root.h"
#include "bench_test_stereo_match_m16.h"
#include "bench_test_stereo_match_root.h"
#include "bench_test_wavelet_denoise_m16.h"
#include "bench_test_wavelet_denoise_root.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using Halide::Runtime::Buffer;
using sextant::bench_test::clampi;
using sextant::bench_test::fill;
using sextant::bench_test::mismatches;

namespace {

/** One channel of an image, row-major. */
struct Plane {
    int w = 0, h = 0;
    std::vector<float> v;
    Plane(int w_, int h_) : w(w_), h(h_), v(size_t(w_) * size_t(h_)) {}
    float &at(int x, int y) { return v[size_t(y) * size_t(w) + size_t(x)]; }
    float at(int x, int y) const { return v[size_t(y) * size_t(w) + size_t(x)]; }
};

float shrink(float d, float t) {
    return d > t ? d - t : d < -t ? d + t : 0.0f;
}

/** One Haar level denoised: the approximation with each detail band shrunk by `t`, then put
 * back together (x pairs averaged first going down, rows first coming up). `approx` maps the
 * half-size approximation before it is put back (the next level, or nothing). */
template <class Approx> Plane haar_level(const Plane &in, float t, const Approx &approx) {
    const int w = in.w / 2, h = in.h / 2;
    Plane lo(w, in.h), hi(w, in.h);
    for (int y = 0; y < in.h; y++)
        for (int x = 0; x < w; x++) {
            lo.at(x, y) = (in.at(2 * x, y) + in.at(2 * x + 1, y)) * 0.5f;
            hi.at(x, y) = (in.at(2 * x, y) - in.at(2 * x + 1, y)) * 0.5f;
        }
    Plane ll(w, h), lh(w, h), hl(w, h), hh(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            ll.at(x, y) = (lo.at(x, 2 * y) + lo.at(x, 2 * y + 1)) * 0.5f;
            lh.at(x, y) = shrink((lo.at(x, 2 * y) - lo.at(x, 2 * y + 1)) * 0.5f, t);
            hl.at(x, y) = shrink((hi.at(x, 2 * y) + hi.at(x, 2 * y + 1)) * 0.5f, t);
            hh.at(x, y) = shrink((hi.at(x, 2 * y) - hi.at(x, 2 * y + 1)) * 0.5f, t);
        }
    const Plane a = approx(ll);
    Plane out(in.w, in.h);
    for (int y = 0; y < in.h; y++)
        for (int x = 0; x < in.w; x++) {
            const int px = x / 2, py = y / 2;
            const float sy = y % 2 == 0 ? 1.0f : -1.0f, sx = x % 2 == 0 ? 1.0f : -1.0f;
            const float l = a.at(px, py) + sy * lh.at(px, py);
            const float r = hl.at(px, py) + sy * hh.at(px, py);
            out.at(x, y) = l + sx * r;
        }
    return out;
}

} // namespace

TEST_CASE("wavelet_denoise matches a C++ two-level Haar shrinkage", "[bench]") {
    const int w = 2048, h = 1536;
    Buffer<float> in(w, h, 3), want(w, h, 3), m16(w, h, 3), root(w, h, 3);
    fill(in, 11);
    const float t = 0.05f;
    for (int c = 0; c < 3; c++) {
        Plane p(w, h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                p.at(x, y) = in(x, y, c);
        const Plane out = haar_level(p, t * 0.5f, [&](const Plane &ll) {
            return haar_level(ll, t, [](const Plane &a) { return a; });
        });
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                want(x, y, c) = std::min(std::max(out.at(x, y), 0.0f), 1.0f);
    }
    REQUIRE(wavelet_denoise_m16(in, t, m16) == 0);
    REQUIRE(wavelet_denoise_root(in, t, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
    // Nothing shrunk, the transform gives the image back.
    REQUIRE(wavelet_denoise_root(in, 0.0f, root) == 0);
    CHECK(mismatches(root, in) == 0);
}

TEST_CASE("stereo_match matches a C++ 7x7 block matcher", "[bench]") {
    const int w = 1280, h = 720, disparities = 48, radius = 3;
    Buffer<uint8_t> left(w, h), right(w, h), want(w, h), m16(w, h), root(w, h);
    fill(left, 12);
    // The right image is the left one shifted by 9 columns, with noise: a clear minimum.
    std::srand(13);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            right(x, y) =
                uint8_t(clampi(left(clampi(x + 9, 0, w - 1), y) + std::rand() % 9 - 4, 0, 255));
    std::vector<uint16_t> rows(size_t(w) * h);
    std::vector<uint16_t> best_cost(size_t(w) * h, UINT16_MAX);
    for (int d = 0; d < disparities; d++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int s = 0;
                for (int k = -radius; k <= radius; k++)
                    s += std::abs(int(left(clampi(x + k, 0, w - 1), y)) -
                                  int(right(clampi(x + k - d, 0, w - 1), y)));
                rows[size_t(y) * w + x] = uint16_t(s);
            }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int s = 0;
                for (int k = -radius; k <= radius; k++)
                    s += rows[size_t(clampi(y + k, 0, h - 1)) * w + x];
                uint16_t &b = best_cost[size_t(y) * w + x];
                if (s < b) { // the first least cost wins, as Halide's argmin keeps it
                    b = uint16_t(s);
                    want(x, y) = uint8_t(d * (255 / (disparities - 1)));
                }
            }
    }
    REQUIRE(stereo_match_m16(left, right, m16) == 0);
    REQUIRE(stereo_match_root(left, right, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}

TEST_CASE("chroma_420 matches a C++ 4:2:0 round trip", "[bench]") {
    const int w = 2560, h = 1600, hw = w / 2, hh = h / 2;
    Buffer<uint8_t> in(w, h, 3), want(w, h, 3), m16(w, h, 3), root(w, h, 3);
    fill(in, 14);
    std::vector<int> luma(size_t(w) * h),
        chroma[2] = {std::vector<int>(size_t(w) * h), std::vector<int>(size_t(w) * h)};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int r = in(x, y, 0), g = in(x, y, 1), b = in(x, y, 2);
            const size_t i = size_t(y) * w + x;
            luma[i] = (77 * r + 150 * g + 29 * b + 128) >> 8;
            chroma[0][i] = ((-43 * r - 85 * g + 128 * b + 128) >> 8) + 128;
            chroma[1][i] = ((128 * r - 107 * g - 21 * b + 128) >> 8) + 128;
        }
    std::vector<int> full[2];
    for (int k = 0; k < 2; k++) {
        std::vector<int> half(size_t(hw) * hh), along_x(size_t(w) * hh);
        auto at = [&](int x, int y) { return chroma[k][size_t(y) * w + x]; };
        for (int y = 0; y < hh; y++)
            for (int x = 0; x < hw; x++)
                half[size_t(y) * hw + x] = (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) +
                                            at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1) + 2) /
                                           4;
        auto e = [&](int x, int y) {
            return half[size_t(clampi(y, 0, hh - 1)) * hw + clampi(x, 0, hw - 1)];
        };
        for (int y = 0; y < hh; y++)
            for (int x = 0; x < w; x++) {
                const int nx = x % 2 == 0 ? x / 2 - 1 : x / 2 + 1;
                along_x[size_t(y) * w + x] = 3 * e(x / 2, y) + e(nx, y);
            }
        full[k].resize(size_t(w) * h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int ny = clampi(y % 2 == 0 ? y / 2 - 1 : y / 2 + 1, 0, hh - 1);
                full[k][size_t(y) * w + x] =
                    (3 * along_x[size_t(y / 2) * w + x] + along_x[size_t(ny) * w + x] + 8) / 16;
            }
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = size_t(y) * w + x;
            const int l = luma[i], u = full[0][i] - 128, v = full[1][i] - 128;
            const int rgb[3] = {l + ((359 * v + 128) >> 8), l - ((88 * u + 183 * v + 128) >> 8),
                                l + ((454 * u + 128) >> 8)};
            for (int c = 0; c < 3; c++)
                want(x, y, c) = uint8_t(clampi(rgb[c], 0, 255));
        }
    REQUIRE(chroma_420_m16(in, m16) == 0);
    REQUIRE(chroma_420_root(in, root) == 0);
    CHECK(mismatches(m16, want) == 0);
    CHECK(mismatches(root, want) == 0);
}
