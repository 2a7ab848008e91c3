// Small generators for the plugin's integration tests (each class says what it is for); the
// first one's output lacks an estimate for y: the plugin must name Func and dimension.
#include "Halide.h"

#include <string>
#include <vector>

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

/** A Bayer-style demosaic with no boundary condition: green from its four neighbours, red and
 * blue from the 2x2 cell. Every schedule (Halide's default too) reads one pixel past the raw
 * input's estimated region on each side, as a real camera pipeline's does. */
class ReadsPastEstimates : public Halide::Generator<ReadsPastEstimates> {
public:
    Input<Buffer<uint16_t>> raw{"raw", 2};
    Output<Buffer<uint16_t>> out{"out", 3};
    void generate() {
        Var x("x"), y("y"), c("c");
        Func wide("wide"), green("green"), red("red"), blue("blue");
        wide(x, y) = Halide::cast<int32_t>(raw(x, y));
        green(x, y) = (wide(x - 1, y) + wide(x + 1, y) + wide(x, y - 1) + wide(x, y + 1)) / 4;
        red(x, y) = wide(2 * (x / 2), 2 * (y / 2));
        blue(x, y) = wide(2 * (x / 2) + 1, 2 * (y / 2) + 1);
        out(x, y, c) = Halide::cast<uint16_t>(
            Halide::select(c == 0, red(x, y), c == 1, green(x, y), blue(x, y)));
        raw.set_estimates({{0, 256}, {0, 128}});
        out.set_estimates({{0, 256}, {0, 128}, {0, 3}});
    }
};

/** A 5x5 box blur through repeat_edge on the input's own bounds: every read is clamped into
 * whatever shape the input has, so a bounds query must be asked with the estimated shape. With
 * an empty one, the copy of the input the boundary condition reads (computed per row,
 * vectorized, as bench nl_means' `lambda_0` was) covered x in [-15, 0], and the input grown to
 * that moved the clamped edge. Without auto_schedule it has that schedule. */
class EdgeClampedInput : public Halide::Generator<EdgeClampedInput> {
public:
    Input<Buffer<float>> in{"in", 2};
    Output<Buffer<float>> out{"out", 2};
    void generate() {
        Var x("x"), y("y");
        Func copy("copy");
        copy(x, y) = in(x, y);
        Func clamped = Halide::BoundaryConditions::repeat_edge(
            copy, {{in.dim(0).min(), in.dim(0).extent()}, {in.dim(1).min(), in.dim(1).extent()}});
        Halide::RDom r(-2, 5, -2, 5);
        out(x, y) = Halide::sum(clamped(x + r.x, y + r.y)) / 25.0f;
        in.set_estimates({{0, 200}, {0, 100}});
        out.set_estimates({{0, 200}, {0, 100}});
        if (!auto_schedule) {
            Var yo("yo"), yi("yi");
            clamped.compute_root().split(y, yo, yi, 8).vectorize(x, 16);
            copy.compute_at(clamped, yo).vectorize(x, 16);
        }
    }
};

/** An image pyramid: `g_0` the input clamped to its edges, then three levels, each a [1 3 3 1] / 8
 * downsample in x (`dx_l`) and then in y (`g_l`), bench local_laplacian's filter. Without
 * auto_schedule it has a schedule Halide 14 miscompiles on x86: `g_0` computed per 16-wide
 * vector of `dx_1`, whose stride-2 loads from g_0's buffer then have constant indices; the
 * dense load behind one of them is given the native vector alignment 8 bytes past it (an
 * aligned load from an unaligned address: SIGSEGV on AVX-512). The ScheduleText
 * strided_pyramid_crash.txt beside this file is the same schedule. With hazard_schedule=false,
 * Halide's default schedule (everything inlined), the reference. */
class StridedPyramid : public Halide::Generator<StridedPyramid> {
public:
    GeneratorParam<bool> hazard_schedule{"hazard_schedule", true};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> out{"out", 2};
    void generate() {
        Var x("x"), y("y"), xo("xo"), xi("xi");
        std::vector<Func> g(4), dx(4);
        g[0] = Func("g_0");
        g[0](x, y) = Halide::BoundaryConditions::repeat_edge(input)(x, y);
        for (size_t l = 1; l < g.size(); l++) {
            const std::string n = std::to_string(l);
            dx[l] = Func("dx_" + n);
            g[l] = Func("g_" + n);
            const Func &f = g[l - 1];
            dx[l](x, y) =
                (f(2 * x - 1, y) + 3.f * (f(2 * x, y) + f(2 * x + 1, y)) + f(2 * x + 2, y)) / 8.f;
            g[l](x, y) = (dx[l](x, 2 * y - 1) + 3.f * (dx[l](x, 2 * y) + dx[l](x, 2 * y + 1)) +
                          dx[l](x, 2 * y + 2)) /
                         8.f;
        }
        out(x, y) = g[3](x, y);
        input.set_estimates({{0, 1024}, {0, 1024}});
        out.set_estimates({{0, 128}, {0, 128}});
        if (!auto_schedule && hazard_schedule) {
            out.vectorize(x, 16).parallel(y);
            for (size_t l = 1; l < g.size(); l++) {
                g[l].compute_root().vectorize(x, 16).parallel(y);
                if (l != 1) dx[l].compute_root().vectorize(x, 16).parallel(y);
            }
            dx[1].compute_root().split(x, xo, xi, 16).vectorize(xi).parallel(y);
            g[0].compute_at(dx[1], xo).vectorize(x, 16);
        }
    }
};

} // namespace

HALIDE_REGISTER_GENERATOR(EdgeClampedInput, edge_clamped_input)
HALIDE_REGISTER_GENERATOR(NoEstimates, no_estimates)
HALIDE_REGISTER_GENERATOR(ReadsPastEstimates, reads_past_estimates)
HALIDE_REGISTER_GENERATOR(StridedPyramid, strided_pyramid)
HALIDE_REGISTER_GENERATOR(WithEstimates, with_estimates)
