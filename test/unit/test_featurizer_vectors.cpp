// Schedule features of vector accesses: vectors narrower than a register, strided and
// fractional-stride loads, gathers from tables that stay in L1, clamps kept in a sliding
// window's edge strips (see TinyDags.h).
#include "FeatureAt.h"
#include "TinyDags.h"
#include "featurizer/StageLoads.h"

#include <catch2/catch.hpp>

using namespace sextant;
using F = ScheduleFeature;

using test::at;
using test::sched;

TEST_CASE("a vector narrower than a register costs its fill where the stage computes wider",
          "[features]") {
    // F(x, y, c) as a uint8 Func over 64 x 32 x 3 (32 natural AVX2 lanes).
    auto vectors = [](TypeClass arithmetic, int vw) {
        PipelineDag dag = test::scale_3d(64, 32, 3);
        FuncNode &f = dag.funcs[0];
        f.value_types = {TypeClass::U8};
        f.bytes_per_point = 1;
        f.stages[0].ops = OpHistogram{};
        f.stages[0].ops.at(OpKind::Mul, arithmetic) = 1;
        Decisions d(1);
        d.mut(0).placement = Placement::Root;
        d.mut(0).stages = {sched({{LoopMode::Inner}, {LoopMode::Inner}, {LoopMode::Inner}}, vw, 0)};
        Nests n = build_all_nests(dag, d);
        Featurizer fz(dag);
        return at(fz.schedule_features(d, n, 0, 0), F::num_vectors);
    };
    // In int32 a 16-lane vector is two registers an op, half of 32 lanes' four: the same count.
    CHECK(vectors(TypeClass::I32, 32) == Approx(6144.0 / 32));
    CHECK(vectors(TypeClass::I32, 16) == Approx(6144.0 / 32));
    // In int16, 16 lanes fill one register: the same again; in 8 bits half a register costs one.
    CHECK(vectors(TypeClass::I16, 16) == Approx(6144.0 / 32));
    CHECK(vectors(TypeClass::U8, 16) == Approx(6144.0 / 16));
    CHECK(vectors(TypeClass::U8, 32) == Approx(6144.0 / 32));
}

namespace {

/** test::strided_read(stride) with D at root, x vectorized by 8 (AVX2): D's features. The
 * load's stride may be a fraction (`den`), and the input larger than D reads (`input_points`). */
ScheduleRow strided_read(int64_t stride, int64_t den = 1, int64_t input_points = 0) {
    PipelineDag dag = test::strided_read(stride);
    dag.funcs[0].stages[0].loads[0].jacobian = {{stride, den, true}};
    if (input_points > 0) dag.inputs[0].bounds = {{0, input_points - 1}};
    Decisions d(1);
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}}, 8, 0)};
    Nests n = build_all_nests(dag, d);
    return Featurizer(dag).schedule_features(d, n, 0, 0);
}

} // namespace

TEST_CASE("a short constant stride is read as dense vectors and shuffles, a long one lane by lane",
          "[features]") {
    // Halide 14 on x86 loads in[ramp(2x, 2, 8)] as two dense vectors and a shuffle (strides
    // 2 to 4: vshufps / vpermps); from stride 5 on it inserts lane by lane (vinsertps).
    // 64 points are 8 vectors: a stride s <= 4 costs 2s dense loads a vector.
    for (int64_t stride : {2, 3, 4}) {
        ScheduleRow r = strided_read(stride);
        CHECK(at(r, F::strided_loads_per_vector) == 1);
        CHECK(at(r, F::dense_load_executions) == 8 * 2 * stride);
        CHECK(at(r, F::gather_lane_executions) == 0);
    }
    // The input here is 64 * 5 floats, a table in L1: half a lane a gather (below).
    ScheduleRow r = strided_read(5, 1, 1 << 16);
    CHECK(at(r, F::dense_load_executions) == 0);
    CHECK(at(r, F::gather_lane_executions) == 64);
    // An upsample's in(x / 2) or in(x / 4) is one narrower dense load and the unpacks that
    // repeat its lanes (vunpcklps / vunpckhps): two dense loads a vector. in(x / 3) is
    // inserted lane by lane.
    for (int64_t den : {2, 4}) {
        r = strided_read(1, den, 1 << 16);
        CHECK(at(r, F::dense_load_executions) == 8 * 2);
        CHECK(at(r, F::gather_lane_executions) == 0);
    }
    r = strided_read(1, 3, 1 << 16);
    CHECK(at(r, F::dense_load_executions) == 0);
    CHECK(at(r, F::gather_lane_executions) == 64);
}

TEST_CASE("a gather from a table that stays in L1 counts half a lane", "[features]") {
    // Bench camera_pipe's 1 KiB tone curve at root, gathered per output lane, ran 10.57 ms
    // against 12.11 with the curve's arithmetic inlined (AVX-512, session 50).
    const double lanes = 64; // 8 vectors of 8, each lane a gather at stride 5
    CHECK(at(strided_read(5), F::gather_lane_executions) == lanes * kL1TableGatherLane);
    const int64_t table_floats = int64_t(kL1TableBytes) / 4;
    CHECK(at(strided_read(5, 1, table_floats), F::gather_lane_executions) ==
          lanes * kL1TableGatherLane);
    CHECK(at(strided_read(5, 1, table_floats + 1), F::gather_lane_executions) == lanes);
}

namespace {

/** stencil_2d's C at root in strips of `strip` rows, P computed per row of C and stored at
 * `store_level` of C's loops (0: per strip, a window sliding down it). */
Decisions window_in_strips(int64_t strip, int store_level) {
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, strip}}, 8, 0)};
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 1; // per row of C
    d.mut(0).store_level = store_level;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    return d;
}

} // namespace

TEST_CASE("a sliding window's first and last strips keep its clamps and gather", "[features]") {
    // stencil_2d with P reading the input through likely clamps in x and y, computed per row
    // of C and stored per strip of C's rows (a window sliding down each strip). Halide
    // partitions C's strip loop for P's y clamp: the first and last strip run with every
    // clamp, and there P's x loop loads a clamp of a ramp, a gather (bench box_blur's `rows`).
    auto features = [](int64_t strip, int store_level) {
        PipelineDag dag = test::stencil_2d_clamped();
        const Decisions d = window_in_strips(strip, store_level);
        const Nests n = build_all_nests(dag, d);
        IndexClamp x{{}, 2, true}, y{{}, 2, true};
        x.moves.set(0);
        y.moves.set(1);
        const double share = clamp_edge_share(dag, d, n, 0, dag.stage(0, 0), {x, y});
        return std::pair{share, Featurizer(dag).schedule_features(d, n, 0, 0)};
    };
    // C's strip loop has 32 / strip iterations, 2 of them at an edge; x has no enclosing loop.
    CHECK(features(8, 0).first == Approx(0.5));
    CHECK(features(4, 0).first == Approx(0.25));
    CHECK(features(16, 0).first == Approx(1.0));
    CHECK(at(features(8, 0).second, F::gather_lane_executions) > 0);
    // Not sliding (stored per row, where it is computed): no share; only the last of the x
    // loop's 8 vectors gathers, in each of 32 x 3 rows, half a lane each (the input fits L1).
    CHECK(features(8, -1).first == 0);
    CHECK(at(features(8, -1).second, F::gather_lane_executions) ==
          Approx(32 * 3 * 8 * kL1TableGatherLane));
}

TEST_CASE("a boundary condition's window keeps its clamps in the edge strips by position",
          "[features]") {
    // The same window with P's variables named as a boundary condition names them (`_0`,
    // `_1`): none matches C's loop names, and P is read at C's coordinates (bench box_blur's
    // `repeat_edge` sliding in `output`'s strips). The input holds rows 0-31: P's rows -1 and
    // 32 are clamped, so its y clamp is active at the strips' edges. Where the input covers
    // all P reads, nothing is clamped there and every strip is steady.
    auto share = [](int64_t strip, Interval64 input_rows) {
        PipelineDag dag = test::stencil_2d_clamped();
        dag.funcs[0].stages[0].loops[0].name = "_0";
        dag.funcs[0].stages[0].loops[1].name = "_1";
        dag.inputs[0].buffer = {{0, 63}, input_rows};
        const Decisions d = window_in_strips(strip, 0);
        const Nests n = build_all_nests(dag, d);
        IndexClamp x{{}, 2, true}, y{{}, 2, true};
        x.moves.set(0);
        y.moves.set(1);
        return clamp_edge_share(dag, d, n, 0, dag.stage(0, 0), {x, y});
    };
    CHECK(share(8, {0, 31}) == Approx(0.5));
    CHECK(share(4, {0, 31}) == Approx(0.25));
    CHECK(share(8, {-1, 32}) == 0);
}

TEST_CASE("a clamp partitioned out of the vector loop stays in its last vector", "[features]") {
    // P(x, y) = in(clamp(likely x), clamp(likely y)) * 2 at root, x whole (64 points): in
    // vectors of 8 lanes the last of 8 keeps x's clamp and gathers, in vectors of 16 the last
    // of 4; in a scalar loop no ramp is clamped at all.
    auto row = [](int lanes) {
        PipelineDag dag = test::stencil_2d_clamped();
        Decisions d(2);
        d.mut(1).placement = Placement::Root;
        d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
        d.mut(0).placement = Placement::Root;
        d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, lanes, 0)};
        const Nests n = build_all_nests(dag, d);
        return Featurizer(dag).schedule_features(d, n, 0, 0);
    };
    const double points = 64 * 34, lane = kL1TableGatherLane; // the input fits L1
    CHECK(at(row(8), F::gather_lane_executions) == Approx(points / 8 * lane));
    CHECK(at(row(16), F::gather_lane_executions) == Approx(points / 4 * lane));
    CHECK(at(row(1), F::gather_lane_executions) == 0);
    // The other vectors load densely: 7 of 8 (one piece each), 3 of 4 (two pieces each).
    CHECK(at(row(8), F::dense_load_executions) == Approx(points / 8 * 7 / 8));
    CHECK(at(row(16), F::dense_load_executions) == Approx(points / 16 * 3 / 4 * 2));
}
