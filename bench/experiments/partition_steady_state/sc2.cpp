// Where a shared boundary clamp leaves the steady state (session 65): repeat_edge over
// `f(x) = g(2x) + g(2x + 1)` (MODE 4) or `f(x) = g(2x)` (MODE 2), `g` the 8-bit input widened,
// under seven schedules of repeat_edge (SCHED): 0 at root, x whole and vectorized; 1 at root,
// x split by 128; 2 as 1 with `g` computed per tile of the outer loop; 3 as 1 with y between
// the parts; 4 as 3 with `g` per tile; 5 computed at the output's rows with `g` per tile; 6 as
// 5 with `g` inlined. Writes mMODEsSCHED.stmt (README, "After the rule").
#include "Halide.h"

using namespace Halide;
int main(int argc, char **argv) {
    const int mode = atoi(argv[1]), sched = atoi(argv[2]);
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func g("g"), f("f");
    g(x, y) = cast<int32_t>(in(x, y));
    if (mode == 2)
        f(x, y) = g(2 * x, y);
    else
        f(x, y) = g(2 * x, y) + g(2 * x + 1, y);
    Func re =
        BoundaryConditions::repeat_edge(f, {{0, in.dim(0).extent() / 2}, {0, in.dim(1).extent()}});
    Func out("out");
    out(x, y) = re(x - 1, y) + re(x + 1, y);
    out.vectorize(x, 16).parallel(y);
    if (sched >= 5)
        re.compute_at(out, y);
    else
        re.compute_root();
    Var rx = re.args()[0], ry = re.args()[1];
    if (sched == 0) re.vectorize(rx, 16);
    if (sched >= 1) re.split(rx, xo, xi, 128).vectorize(xi, 16);
    if (sched == 2) g.compute_at(re, xo).vectorize(x, 16);
    if (sched == 3) re.reorder(xi, ry, xo);
    if (sched == 5) g.compute_at(re, xo).vectorize(x, 16);
    if (sched == 4) {
        re.reorder(xi, ry, xo);
        g.compute_at(re, xo).vectorize(x, 16);
    }
    Target t("x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41");
    out.compile_to_lowered_stmt("m" + std::to_string(mode) + "s" + std::to_string(sched) + ".stmt",
                                {in}, Text, t);
    return 0;
}
