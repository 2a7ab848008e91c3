#include "Halide.h"
using namespace Halide;
int main(int argc, char **argv) {
    const int mode = atoi(argv[1]);
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y");
    Func re = mode == 0 ? BoundaryConditions::repeat_edge(in)
                        : BoundaryConditions::repeat_edge(
                              Func(in), {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
    Func out("out");
    out(x, y) = cast<int32_t>(re(x - 1, y)) + re(x + 1, y);
    Var xo("xo"), xi("xi");
    out.split(x, xo, xi, 256).vectorize(xi, 16).parallel(y);
    if (mode == 2) re.compute_at(out, xo).vectorize(re.args()[0], 16);
    if (mode == 3) re.compute_root().vectorize(re.args()[0], 16);
    if (mode == 4) {
        Var a("a"), b("b");
        re.compute_root().split(re.args()[0], a, b, 16, TailStrategy::GuardWithIf).vectorize(b);
    }
    Target t("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
    out.compile_to_lowered_stmt(std::string("m") + argv[1] + ".stmt", {in}, Text, t);
    return 0;
}
