// A boundary Func over a Func that reads its input once or twice through the
// clamped coordinate (modes below), computed at root and vectorized; writes the
// lowered statement (bMODE.stmt) for the bench's AVX-512 target.
// bench/experiments/partition_steady_state.
#include "Halide.h"

using namespace Halide;

int main(int argc, char **argv) {
    const int mode = argc > 1 ? atoi(argv[1]) : 0;
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y");
    Func f("f");
    switch (mode) {
    case 0:
        f(x, y) = cast<int32_t>(in(x, y));
        break; // one load
    case 1:
        f(x, y) = cast<int32_t>(in(x, y)) + in(x, y);
        break; // the same load twice
    case 2:
        f(x, y) = cast<int32_t>(in(2 * x, y));
        break; // one load, stride 2
    case 3:
        f(x, y) = cast<int32_t>(in(x, y)) + in(x + 1, y);
        break; // two loads
    default:
        f(x, y) = cast<int32_t>(in(2 * x, y)) + in(2 * x + 1, y);
        break; // two, stride 2
    }
    Func re =
        BoundaryConditions::repeat_edge(f, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
    Func out("out");
    out(x, y) = re(x - 1, y) + re(x + 1, y);
    out.vectorize(x, 16).parallel(y);
    re.compute_root().vectorize(re.args()[0], 16);
    Target t("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-"
             "fma-sse41");
    out.compile_to_lowered_stmt("b" + std::to_string(mode) + ".stmt", {in}, Text, t);
    return 0;
}
