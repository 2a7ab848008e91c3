#include "Halide.h"
#include <cstdio>
using namespace Halide;
int main(int argc, char **argv) {
    int stride = atoi(argv[1]);
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y");
    Func half("half");
    half(x, y) = cast<int32_t>(in(stride * x, y)) + in(stride * x + (stride - 1), y);
    Func re = BoundaryConditions::repeat_edge(
        half, {{0, in.dim(0).extent() / stride}, {0, in.dim(1).extent()}});
    Func out("out");
    out(x, y) = re(x - 1, y) + re(x + 1, y);
    out.vectorize(x, 16).parallel(y);
    re.compute_root().vectorize(re.args()[0], 16);
    Target t("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
    out.compile_to_lowered_stmt(std::string("s") + argv[1] + ".stmt", {in}, Text, t);
    return 0;
}
