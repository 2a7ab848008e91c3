// Hand-built Halide 14 variants of the strided-load crash (docs/SEARCH.md, "Stack alignment on
// AVX-512"): ./v VARIANT WIDTH runs one (a crash is SIGSEGV) and writes its assembly to
// vVARIANT_WIDTH.s for `sextant-fuzz --scan-assembly`. Session 25: variants 2 and 4-8 crash at
// width 1024, 1, 3 and 9 do not. Build: g++ -std=c++17 -O1 halide_variants.cpp
// -I/usr/include/halide14 -lHalide14 -lpthread -ldl -o v
#include "Halide.h"
#include <cstdio>
using namespace Halide;
int main(int argc, char **argv) {
    int variant = atoi(argv[1]), W = atoi(argv[2]);
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi"), xii("xii");
    Func c("c"), f("f"), out("out");
    c = BoundaryConditions::repeat_edge(in);
    f(x, y) = c(x, y) * 2.f + c(x + 1, y);
    out(x, y) = f(2 * x, y) + 3.f * f(2 * x + 1, y) + 3.f * f(2 * x + 2, y) + f(2 * x + 3, y);
    switch (variant) {
    case 1:
        out.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi).parallel(yo);
        f.compute_at(out, xo).vectorize(x, 16);
        break;
    case 2:
        out.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi).unroll(yi).parallel(yo);
        f.compute_at(out, xo).vectorize(x, 16);
        break;
    case 3:
        out.split(x, xo, xi, 64).split(xi, xi, xii, 16).vectorize(xii).parallel(y);
        f.compute_at(out, xo).vectorize(x, 16);
        break;
    case 4:
        out.split(x, xo, xi, 16).vectorize(xi).parallel(y);
        f.compute_at(out, xo).vectorize(x, 16).store_in(MemoryType::Heap);
        break;
    case 5:
        out.split(x, xo, xi, 16).vectorize(xi).parallel(y);
        f.compute_at(out, xo).vectorize(x, 16);
        break;
    case 6:
        out.split(x, xo, xi, 8).vectorize(xi).parallel(y);
        f.compute_at(out, xo).vectorize(x, 8);
        break;
    case 7:
        out.split(x, xo, xi, 32).vectorize(xi).parallel(y);
        f.compute_at(out, xo).vectorize(x, 32);
        break;
    case 8:
        out.split(x, xo, xi, 16).vectorize(xi).parallel(y);
        f.compute_at(out, xo);
        break;
    case 9:
        out.split(x, xo, xi, 16).vectorize(xi).parallel(y);
        f.compute_at(out, y).vectorize(x, 16);
        break;
    }
    Target t("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
    std::string tag = std::string("v") + argv[1] + "_" + argv[2];
    out.compile_to_assembly(tag + ".s", {in}, "out", t.with_feature(Target::NoRuntime));
    Buffer<float> ib(2 * W + 8, 16);
    for (int yy = 0; yy < 16; yy++)
        for (int xx = 0; xx < ib.width(); xx++)
            ib(xx, yy) = xx * 0.5f + yy;
    in.set(ib);
    Buffer<float> o = out.realize({W, 16}, t);
    float e = 0;
    for (int yy = 0; yy < 16; yy++)
        for (int xx = 0; xx < W; xx++) {
            auto cl = [&](int X) { return std::min(std::max(X, 0), ib.width() - 1); };
            auto F = [&](int X) { return ib(cl(X), yy) * 2.f + ib(cl(X + 1), yy); };
            float r = F(2 * xx) + 3 * F(2 * xx + 1) + 3 * F(2 * xx + 2) + F(2 * xx + 3);
            e = std::max(e, std::abs(r - o(xx, yy)));
        }
    printf("%s ok maxerr %g\n", tag.c_str(), e);
    return 0;
}
