#include "HalideBuffer.h"
#include "consumer_lib.h"

#include <cstdio>

int main() {
    Halide::Runtime::Buffer<float> in(65, 32), out(64, 32);
    in.for_each_element([&](int x, int y) { in(x, y) = float(x + y); });
    if (consumer_lib(in, out) != 0) return 1;
    // out(x, y) = 2 * (in(x, y) + in(x + 1, y)) = 2 * (2x + 2y + 1)
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 64; x++)
            if (out(x, y) != 2.f * (2 * x + 2 * y + 1)) {
                std::printf("mismatch at %d %d\n", x, y);
                return 1;
            }
    std::printf("consumer ok\n");
    return 0;
}
