// A boundary condition over a Func that reads its input more than once: the clamp's bound is a
// computed parameter (`input.extent.0 / 2 - 1`), still the load's index clamp, and a clamp
// whose coordinate feeds two loads stays in every vector (featurizer/StageLoads.h,
// IndexClamp::shared; bench/experiments/partition_steady_state).
#include "DagHelpers.h"
#include "featurizer/Featurizer.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

using namespace Halide;

namespace {

using sextant::ScheduleFeature;

/** repeat_edge over `half(x, y)`, a half-width Func reading `taps` neighbouring columns at 2x
 * (1 or 2) of `g`, the 8-bit input widened, read by a two-tap stencil. */
sextant::PipelineDag half_width_edge(int taps) {
    ImageParam in(UInt(8), 2, "in_half" + std::to_string(taps));
    Var x("x"), y("y");
    const std::string t = std::to_string(taps);
    Func g("g" + t), half("half" + t), out("out" + t);
    g(x, y) = cast<int32_t>(in(x, y));
    Expr v = g(2 * x, y);
    if (taps == 2) v += g(2 * x + 1, y);
    half(x, y) = v;
    Func edge = BoundaryConditions::repeat_edge(
        half, {{0, in.dim(0).extent() / 2}, {0, in.dim(1).extent()}});
    out(x, y) = edge(x - 1, y) + edge(x + 1, y);
    out.set_estimate(x, 0, 1024).set_estimate(y, 0, 64);
    in.set_estimates({{0, 2048}, {0, 64}});
    return sextant::test::build({out}, sextant::test::two_cores());
}

/** The boundary Func's name (Halide names it `repeat_edge`, with a suffix after the first). */
std::string edge_name(const sextant::PipelineDag &dag) {
    for (const sextant::FuncNode &f : dag.funcs)
        if (f.name.rfind("repeat_edge", 0) == 0) return f.name;
    FAIL("no repeat_edge Func");
    return "";
}

/** `repeat_edge` at root with x as `x_loop` (`inner`: whole, or `split128`) vectorized by 16,
 * `half` inlined into it, `g` as `g_place` (`inline`, `root`, or `at EDGE 0`: per iteration of
 * the edge's outermost loop), featurized by `fz` (one per test by default). */
sextant::ScheduleRow edge_features(const sextant::PipelineDag &dag, int taps,
                                   const std::string &x_loop = "inner",
                                   const std::string &g_place = "inline",
                                   const sextant::Featurizer *fz = nullptr) {
    const std::string t = std::to_string(taps), edge = edge_name(dag);
    const std::string place = g_place == "at" ? "at " + edge + " 0" : g_place;
    const std::string g =
        "func g" + t + " " + place + "\n" +
        (g_place == "inline" ? ""
                             : "  stage 0 loops x:inner y:inner vector 16 unroll 1 parallel 0\n");
    const std::string text = "sextant-schedule 1\nfunc out" + t +
                             " root\n"
                             "  stage 0 loops x:inner y:inner vector 16 unroll 1 parallel 1\n"
                             "func " +
                             edge + " root\n  stage 0 loops x:" + x_loop +
                             " y:inner vector 16 unroll 1 parallel 1\n"
                             "func half" +
                             t + " inline\n" + g;
    const sextant::Decisions d = sextant::parse_schedule_text(dag, text);
    const sextant::Nests nests = sextant::build_all_nests(dag, d);
    if (fz) return fz->schedule_features(d, nests, dag.find_func(edge), 0);
    return sextant::Featurizer(dag).schedule_features(d, nests, dag.find_func(edge), 0);
}

double at(const sextant::ScheduleRow &r, ScheduleFeature f) {
    return r[size_t(f)];
}

} // namespace

TEST_CASE("a boundary clamp with a computed bound is the load's index clamp", "[dag]") {
    const sextant::PipelineDag dag = half_width_edge(2);
    const sextant::Stage &s = dag.funcs[size_t(dag.find_func(edge_name(dag)))].stages[0];
    REQUIRE(s.loads.size() == 1);
    // Each coordinate's min and max; the bound's division is computed once, outside the loops,
    // not work per point.
    CHECK(s.loads[0].clamps == std::vector<int>{2, 2});
    CHECK(s.loads[0].likely == std::vector<bool>{true, true});
    CHECK(s.ops.of_kind(sextant::OpKind::MinMax) == 0);
    CHECK(s.ops.of_kind(sextant::OpKind::Div) == 0);
}

TEST_CASE("a boundary clamp feeding two loads stays in every vector and they gather",
          "[features]") {
    // One load per clamp: Halide partitions x and the steady loop reads `in[ramp(...)]`; only
    // the last vector of each row keeps the clamp. Two loads (`in(2x)` and `in(2x + 1)`) share
    // the clamped coordinate in one `let` that no partitioned loop drops: every vector gathers
    // (bench chroma_420's pick: 17.4 ms against 6.1 with `half` at root instead).
    const sextant::ScheduleRow one = edge_features(half_width_edge(1), 1);
    const sextant::ScheduleRow two = edge_features(half_width_edge(2), 2);
    CHECK(at(one, ScheduleFeature::dense_load_executions) > 0);
    CHECK(at(one, ScheduleFeature::gather_lane_executions) <
          0.2 * at(two, ScheduleFeature::gather_lane_executions));
    CHECK(at(two, ScheduleFeature::dense_load_executions) == 0);
    CHECK(at(two, ScheduleFeature::gather_lane_executions) > 0);
    // The clamps are work in every vector of `two`, in the last vector only of `one`.
    CHECK(at(two, ScheduleFeature::ops_per_point) > at(one, ScheduleFeature::ops_per_point) + 1);
}

TEST_CASE("a shared boundary clamp drops out of a split's steady state where its loads read a "
          "buffer computed there",
          "[features]") {
    // repeat_edge's x split by 128 (the outer part first, then y): with `g` inlined the two
    // loads read the input and gather in every part; with `g` computed per 128-column tile
    // the steady state of the outer loop reads `g[ramp(t * 2, 2, 16)]` (`-e stmt` of
    // bench/experiments/partition_steady_state/sc2.cpp, modes 4 and sched 1 / 2; bench
    // chroma_420's autotuned schedule, 3.44 ms against the pick's 5.27, has that shape).
    const sextant::PipelineDag dag = half_width_edge(2);
    const sextant::ScheduleRow through_input = edge_features(dag, 2, "split128");
    const sextant::ScheduleRow from_tile = edge_features(dag, 2, "split128", "at");
    CHECK(at(through_input, ScheduleFeature::dense_load_executions) == 0);
    CHECK(at(from_tile, ScheduleFeature::dense_load_executions) > 0);
    CHECK(at(from_tile, ScheduleFeature::gather_lane_executions) <
          0.5 * at(through_input, ScheduleFeature::gather_lane_executions));
    // `g` at root is read through the clamp from a buffer computed elsewhere: gathers. One
    // featurizer for both: the stage's loads are cached per inlined set, and `g`'s place
    // (not inlined either way) must still tell them apart.
    const sextant::Featurizer fz(dag);
    const sextant::ScheduleRow root = edge_features(dag, 2, "split128", "root", &fz);
    const sextant::ScheduleRow tile = edge_features(dag, 2, "split128", "at", &fz);
    CHECK(at(root, ScheduleFeature::dense_load_executions) == 0);
    CHECK(at(tile, ScheduleFeature::dense_load_executions) ==
          Approx(at(from_tile, ScheduleFeature::dense_load_executions)));
}
