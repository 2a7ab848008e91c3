// Runs the example pipeline compiled two ways — Halide's default schedule and Sextant's — on the
// same input, checks they agree, and prints their runtimes (min and median of several runs).
#include "HalideBuffer.h"
#include "halide_benchmark.h"
#include "unsharp_default.h"
#include "unsharp_sextant.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using Halide::Runtime::Buffer;

namespace {

struct Timing {
    double min_ms, median_ms;
};

template <typename F> Timing time_it(F f, int reps) {
    std::vector<double> t;
    f(); // warm up
    for (int i = 0; i < reps; i++)
        t.push_back(Halide::Tools::benchmark(1, 1, f) * 1e3);
    std::sort(t.begin(), t.end());
    return {t.front(), t[t.size() / 2]};
}

} // namespace

int main(int argc, char **argv) {
    const int W = 2560, H = 1536, C = 3;
    int reps = argc > 1 ? std::atoi(argv[1]) : 10;
    Buffer<float> in(W, H, C), a(W, H, C), b(W, H, C);
    in.for_each_element(
        [&](int x, int y, int c) { in(x, y, c) = float((x * 7 + y * 13 + c * 29) % 256) / 255.f; });
    if (unsharp_default(in, 1.5f, a) != 0 || unsharp_sextant(in, 1.5f, b) != 0) {
        std::fprintf(stderr, "pipeline failed\n");
        return 1;
    }
    double max_err = 0;
    a.for_each_element([&](int x, int y, int c) {
        max_err = std::max(max_err, double(std::fabs(a(x, y, c) - b(x, y, c))));
    });
    Timing td = time_it([&]() { unsharp_default(in, 1.5f, a); }, reps);
    Timing ts = time_it([&]() { unsharp_sextant(in, 1.5f, b); }, reps);
    std::printf("\nunsharp mask, %dx%dx%d float, %d runs each\n", W, H, C, reps);
    std::printf("| schedule | min ms | median ms | speedup (median) |\n|---|---|---|---|\n");
    std::printf("| Halide default (all inlined) | %.2f | %.2f | 1.00 |\n", td.min_ms, td.median_ms);
    std::printf("| Sextant | %.2f | %.2f | %.2f |\n", ts.min_ms, ts.median_ms,
                td.median_ms / ts.median_ms);
    std::printf("max |difference| = %g (%s)\n", max_err,
                max_err <= 1e-4 ? "outputs agree" : "MISMATCH");
    return max_err <= 1e-4 ? 0 : 1;
}
