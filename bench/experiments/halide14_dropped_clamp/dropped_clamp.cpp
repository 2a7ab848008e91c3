#include "Halide.h"
#include <cstdio>
using namespace Halide;
int main() {
    ImageParam in(Int(32), 1, "in");
    Var x("x"), y("y");
    Func src("src"), f("f");
    src(x) = max(in(x), -65536);
    f(x, y) = clamp((src(x) * (y % 4 + 1)) / 2, -65536, 65536);
    Buffer<int32_t> b(4);
    b.fill(-65536);
    in.set(b);
    Buffer<int32_t> out = f.realize({4, 4});
    std::printf("inlined f(0,3) = %d (clamp says -65536)\n", out(0, 3));
    Func src2("src2"), f2("f2");
    src2(x) = max(in(x), -65536);
    f2(x, y) = clamp((src2(x) * (y % 4 + 1)) / 2, -65536, 65536);
    src2.compute_root();
    Buffer<int32_t> out2 = f2.realize({4, 4});
    std::printf("src at root f(0,3) = %d\n", out2(0, 3));
    return 0;
}
