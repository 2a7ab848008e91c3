// Which producers Halide 14 misaligns (docs/SEARCH.md): ./w BITS, bit 1 = the downsampling consumer
// is an intermediate Func, 2 = taps 2x-1..2x+2, 4 = the producer reads a root Func instead of the
// input through repeat_edge. Session 25: 0-3 crash (SIGSEGV), 4-7 run. Build as
// halide_variants.cpp.
#include "Halide.h"
#include <cstdio>
using namespace Halide;
// variant bits: 1 = consumer intermediate (not output), 2 = taps 2x-1..2x+2 (else 2x..2x+3), 4 = f
// reads another Func (not input)
int main(int argc, char **argv) {
    int v = atoi(argv[1]);
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func c("c"), p("p"), f("f"), d("d"), out("out");
    c = BoundaryConditions::repeat_edge(in);
    if (v & 4) {
        p(x, y) = c(x, y) * 0.5f;
        p.compute_root();
        f(x, y) = p(x, y) * 2.f + p(x + 1, y);
    } else
        f(x, y) = c(x, y) * 2.f + c(x + 1, y);
    int o = (v & 2) ? -1 : 0;
    d(x, y) = f(2 * x + o, y) + 3.f * f(2 * x + o + 1, y) + 3.f * f(2 * x + o + 2, y) +
              f(2 * x + o + 3, y);
    Func &cons = (v & 1) ? d : out;
    if (v & 1) {
        out(x, y) = d(x, y) + 1.f;
        out.vectorize(x, 16).parallel(y);
        d.compute_root();
    } else
        out = d;
    cons.split(x, xo, xi, 16).vectorize(xi).parallel(y);
    f.compute_at(cons, xo).vectorize(x, 16);
    Target t("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
    int W = 1024;
    Buffer<float> ib(2 * W + 8, 16);
    for (int yy = 0; yy < 16; yy++)
        for (int xx = 0; xx < ib.width(); xx++)
            ib(xx, yy) = xx * 0.5f + yy;
    in.set(ib);
    Buffer<float> r = out.realize({W, 16}, t);
    printf("v%d ok\n", v);
    return 0;
}
