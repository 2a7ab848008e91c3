// A generator whose output lacks an estimate for y: the plugin must name Func and dimension.
#include "Halide.h"

namespace {

class NoEstimates : public Halide::Generator<NoEstimates> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> out{"out", 2};
    void generate() {
        Var x("x"), y("y");
        Func blur("blur");
        blur(x, y) = input(x, y) + input(x + 1, y);
        out(x, y) = blur(x, y) * 2.f;
        out.set_estimate(x, 0, 64); // y deliberately missing
    }
};

class WithEstimates : public Halide::Generator<WithEstimates> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> out{"out", 2};
    void generate() {
        Var x("x"), y("y");
        Func blur("blur");
        blur(x, y) = input(x, y) + input(x + 1, y);
        out(x, y) = blur(x, y) * 2.f;
        out.set_estimates({{0, 64}, {0, 32}});
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(NoEstimates, no_estimates)
HALIDE_REGISTER_GENERATOR(WithEstimates, with_estimates)
