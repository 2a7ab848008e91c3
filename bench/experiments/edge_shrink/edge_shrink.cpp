// A Func that reads its input unclamped, read through a boundary condition past the image's
// edge: computed inside the consumer's loops, its region at the edge is one pixel, and a
// shifted vector or split tile reads the input before its start. At root it runs.
// Build and run: see README.md.
#include "Halide.h"

#include <cstdio>

using namespace Halide;

namespace {

enum class Place { AtVectorized, AtSplit, Root };

void run(Place place, const char *what) {
    Buffer<float> input(64);
    for (int i = 0; i < 64; i++)
        input(i) = float(i);
    ImageParam in(Float(32), 1, "in");
    Var x("x"), xo("xo"), xi("xi");
    Func gray("gray"), blur("blur");
    gray(x) = in(x)*2.0f;
    Func padded = BoundaryConditions::repeat_edge(gray, {{0, 64}});
    blur(x) = padded(x - 40) + padded(x - 41); // the first tiles lie wholly left of the image
    blur.split(x, xo, xi, 16);
    if (place == Place::AtVectorized) gray.compute_at(blur, xo).vectorize(x, 8);
    if (place == Place::AtSplit) gray.compute_at(blur, xo).split(x, xo, xi, 4);
    if (place == Place::Root) gray.compute_root().vectorize(x, 8);
    in.set(input);
    const Target t = get_jit_target_from_environment().without_feature(
        Target::AVX512_SapphireRapids); // this machine's Halide 14 adds it wrongly
    try {
        Buffer<float> out = blur.realize({64}, t);
        std::printf("%s: ran, out(0) = %g\n", what, out(0));
    } catch (const Halide::RuntimeError &e) {
        std::printf("%s: %s\n", what, e.what());
    }
}

} // namespace

int main() {
    run(Place::AtVectorized, "gray at blur's tile, vectorized by 8");
    run(Place::AtSplit, "gray at blur's tile, split by 4");
    run(Place::Root, "gray at root, vectorized by 8");
    return 0;
}
