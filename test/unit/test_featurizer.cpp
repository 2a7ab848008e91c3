// Schedule features with hand-computed values (see TinyDags.h for the pipelines).
#include "FeatureAt.h"
#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "featurizer/Featurizer.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>

using namespace sextant;
using F = ScheduleFeature;

namespace {

using test::at;
using test::sched;

/** transpose_reduce_with_output with O at root split by `tile` (vector 8), S computed per
 * tile of O (pure stage one vector loop, update scheduled by `update`) and T at root. */
Decisions s_per_tile_of_o(int64_t tile, const StageSched &update) {
    Decisions d(3);
    d.mut(2).placement = Placement::Root;
    d.mut(2).stages = {sched({{LoopMode::Split, tile}}, 8, 0)};
    d.mut(1).placement = Placement::At;
    d.mut(1).at_func = 2;
    d.mut(1).at_level = 0;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}}, 8, 0), update};
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    return d;
}

/** stencil_1d with C split by 16 (parallel outer, vector 8) and P placed as given. */
Decisions stencil(Placement p_place) {
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Split, 16}}, 8, 1)};
    d.mut(0).placement = p_place;
    if (p_place == Placement::At) {
        d.mut(0).at_func = 1;
        d.mut(0).at_level = 0;
    }
    if (p_place != Placement::Inline) d.mut(0).stages = {sched({{LoopMode::Inner, 0}}, 8, 0)};
    return d;
}

} // namespace

TEST_CASE("stencil, producer at root: consumer features", "[features]") {
    PipelineDag dag = test::stencil_1d();
    Decisions d = stencil(Placement::Root);
    Nests n = build_all_nests(dag, d);
    Featurizer fz(dag);
    ScheduleRow c = fz.schedule_features(d, n, 1, 0);
    CHECK(at(c, F::realizations) == 1);
    CHECK(at(c, F::points_per_realization) == 64);
    CHECK(at(c, F::total_points) == 64);
    CHECK(at(c, F::recompute_ratio) == 1);
    CHECK(at(c, F::ops_per_point) == 2);
    CHECK(at(c, F::num_vectors) == 8);
    CHECK(at(c, F::vector_tail_waste) == 0);
    CHECK(at(c, F::innermost_extent) == 16);
    CHECK(at(c, F::inner_loop_iterations) == 4);
    CHECK(at(c, F::parallel_tasks) == 4);
    CHECK(at(c, F::idle_core_fraction) == 0);
    CHECK(at(c, F::false_sharing) == 0); // a task writes 16 floats = one full line
    CHECK(at(c, F::allocation_bytes) == 256);
    CHECK(at(c, F::loads_per_point) == 3);
    CHECK(at(c, F::dense_loads_per_vector) == 3);
    CHECK(at(c, F::bytes_read_per_realization) == 66 * 4);
    CHECK(at(c, F::bytes_read_root) == 66 * 4);
    CHECK(at(c, F::bytes_read_local) == 0);
    CHECK(at(c, F::working_set_inner) == 18 * 4); // one x_o tile reads P[-1, 16]
    CHECK(at(c, F::working_set_realization) == 66 * 4 + 256);
    CHECK(at(c, F::dram_bytes) == 66 * 4);
    // No such Func or stage: an InternalError naming it, not a read past the DAG.
    CHECK_THROWS_AS(fz.schedule_features(d, n, -1, 0), InternalError);
    CHECK_THROWS_AS(fz.schedule_features(d, n, 1, 1), InternalError);
}

TEST_CASE("stencil, producer per consumer tile: recompute and locality", "[features]") {
    PipelineDag dag = test::stencil_1d();
    Decisions d = stencil(Placement::At);
    Nests n = build_all_nests(dag, d);
    Featurizer fz(dag);
    ScheduleRow p = fz.schedule_features(d, n, 0, 0);
    CHECK(at(p, F::realizations) == 4);
    CHECK(at(p, F::points_per_realization) == 18);
    CHECK(at(p, F::total_points) == 72);
    CHECK(at(p, F::min_points) == 66);
    CHECK(at(p, F::recompute_ratio) == Approx(72.0 / 66.0));
    CHECK(at(p, F::inside_parallel) == 1);
    CHECK(at(p, F::idle_core_fraction) == 0);
    CHECK(at(p, F::vector_tail_waste) == 0.25); // 18 points in 3 vectors of 8
    CHECK(at(p, F::allocation_bytes) == 72);
    CHECK(at(p, F::num_allocations) == 4);
    CHECK(at(p, F::bytes_read_per_realization) == 72);
    CHECK(at(p, F::total_bytes_read) == 288);
    CHECK(at(p, F::root_producer_bytes) == 264);
    CHECK(at(p, F::dram_bytes) == 264); // working set fits: each input byte comes once
    ScheduleRow c = fz.schedule_features(d, n, 1, 0);
    CHECK(at(c, F::bytes_read_local) == 264);
    CHECK(at(c, F::bytes_read_root) == 0);
    CHECK(at(c, F::dram_bytes) == 0);
    // P's 18 points a tile split by 16: Halide's ShiftInwards runs two whole tiles of 16 (the
    // second shifted back over points the first computed), 32 points; by 6, three tiles of 6.
    for (auto [tile, points] : {std::pair<int64_t, double>{16, 32}, {6, 18}}) {
        d.mut(0).stages = {sched({{LoopMode::Split, tile}}, 8, 0)};
        n = build_all_nests(dag, d);
        p = fz.schedule_features(d, n, 0, 0);
        CHECK(at(p, F::points_per_realization) == points);
        CHECK(at(p, F::total_points) == 4 * points);
    }
}

TEST_CASE("stencil, producer inlined: ops and loads move into the consumer", "[features]") {
    PipelineDag dag = test::stencil_1d();
    Decisions d = stencil(Placement::Inline);
    Nests n = build_all_nests(dag, d);
    CHECK_FALSE(n[0]);
    Featurizer fz(dag);
    ScheduleRow c = fz.schedule_features(d, n, 1, 0);
    CHECK(at(c, F::ops_per_point) == 2 + 3 * 1);
    CHECK(at(c, F::loads_per_point) == 3);
    CHECK(at(c, F::bytes_read_per_realization) == 66 * 4); // from the input now
    CHECK(at(c, F::root_producer_bytes) == 66 * 4);
}

TEST_CASE("transpose: vector loads along x are gathers", "[features]") {
    PipelineDag dag = test::transpose_reduce();
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}}, 8, 1),
                       sched({{LoopMode::Outer, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 1)};
    Nests n = build_all_nests(dag, d);
    Featurizer fz(dag);
    ScheduleRow t = fz.schedule_features(d, n, 0, 0);
    CHECK(at(t, F::strided_loads_per_vector) == 1);
    CHECK(at(t, F::dense_loads_per_vector) == 0);
    CHECK(at(t, F::parallel_tasks) == 64); // y is the outermost loop
    CHECK(at(t, F::idle_core_fraction) == 0);
    CHECK(at(t, F::bytes_read_per_realization) == 128 * 64 * 4);
}

TEST_CASE("reduction update: points, self loads and working set", "[features]") {
    PipelineDag dag = test::transpose_reduce();
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}}, 8, 1),
                       sched({{LoopMode::Outer, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 1, 0)};
    Nests n = build_all_nests(dag, d);
    Featurizer fz(dag);
    ScheduleRow u = fz.schedule_features(d, n, 1, 1);
    CHECK(at(u, F::points_per_realization) == 64 * 128);
    CHECK(at(u, F::ops_per_point) == 1);
    CHECK(at(u, F::loads_per_point) == 2);
    CHECK(at(u, F::dense_loads_per_vector) == 2);
    CHECK(at(u, F::innermost_extent) == 128);
    CHECK(at(u, F::inner_loop_iterations) == 64);
    CHECK(at(u, F::allocation_bytes) ==
          128 * 4); // the buffer it writes (allocated by the pure stage)
    CHECK(at(u, F::num_allocations) == 0);
    CHECK(at(u, F::bytes_read_per_realization) == 128 * 64 * 4);
    CHECK(at(u, F::working_set_inner) == 128 * 4); // one r iteration reads one row of T
    CHECK(at(u, F::idle_core_fraction) == 0.5);    // serial on 2 cores
    ScheduleRow t = fz.schedule_features(d, n, 0, 0);
    CHECK(at(t, F::scalar_points) == 128 * 64);
    CHECK(at(t, F::vector_points) == 0);
}

TEST_CASE("algorithm features classify accesses from Jacobians", "[features]") {
    PipelineDag dag = test::transpose_reduce();
    Featurizer fz(dag);
    const auto &names = algorithm_schema();
    auto value = [&](int func, int stage, const std::string &name) {
        for (size_t i = 0; i < names.size(); i++)
            if (names[i].name == name) return fz.algorithm_table()[fz.stage_id(func, stage)][i];
        FAIL("no feature " << name);
        return 0.f;
    };
    CHECK(value(0, 0, "access.transpose.input") == 1);
    CHECK(value(1, 1, "access.pointwise.func") == 1); // T(x, r): r rows do not order
    CHECK(value(1, 1, "access.pointwise.self") == 1);
    CHECK(value(1, 1, "reduction_loops") == 1);
    CHECK(value(1, 1, "op.add.f32") == 1);
}

TEST_CASE("the analytical model's preferences on the stencil", "[model]") {
    PipelineDag dag = test::stencil_1d();
    AnalyticalModel m(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    Featurizer fz(dag);
    auto cost = [&](const Decisions &d) {
        Nests n = build_all_nests(dag, d);
        FeatureBatch b;
        b.num_states = 1;
        for (int f = 0; f < 2; f++) {
            if (!n[f]) continue;
            b.schedule.push_back(fz.schedule_features(d, n, f, 0));
            b.state_index.push_back(0);
            b.stage_ids.push_back(fz.stage_id(f, 0));
        }
        return m.predict(b)[0];
    };
    // Inlining the cheap producer beats a separate pass over it.
    CHECK(cost(stencil(Placement::Inline)) < cost(stencil(Placement::Root)));
    // 64 points are not worth waking threads for; vectors still pay.
    Decisions serial = stencil(Placement::Inline);
    serial.mut(1).stages[0].parallel = 0;
    CHECK(cost(serial) < cost(stencil(Placement::Inline)));
    Decisions scalar = serial;
    scalar.mut(1).stages[0].vector_width = 1;
    CHECK(cost(serial) < cost(scalar));
}

TEST_CASE("sliding window: storage further out computes each row once", "[features]") {
    PipelineDag dag = test::stencil_2d();
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 0)}; // y_o, y_i, x
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 1; // per row of C
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    Featurizer fz(dag);
    Nests per_row = build_all_nests(dag, d);
    ScheduleRow a = fz.schedule_features(d, per_row, 0, 0);
    CHECK(at(a, F::realizations) == 32);
    CHECK(at(a, F::total_points) == 32 * 3 * 64);
    CHECK(at(a, F::allocation_bytes) == 3 * 64 * 4);
    CHECK(at(a, F::num_allocations) == 32);
    d.mut(0).store_level = 0; // store per 8-row strip (y_o): rows -1..8 slide
    Nests sliding = build_all_nests(dag, d);
    CHECK(sliding[0]->sliding);
    ScheduleRow b = fz.schedule_features(d, sliding, 0, 0);
    CHECK(at(b, F::realizations) == 32);
    CHECK(at(b, F::total_points) == 4 * 10 * 64);
    CHECK(at(b, F::allocation_bytes) == 4 * 64 * 4); // Halide folds the 10 rows to 4
    CHECK(at(b, F::num_allocations) == 4);
    CHECK(at(b, F::recompute_ratio) == Approx(2560.0 / (34 * 64)));
    // P's y split by 4 under the window: every step runs a whole tile (Halide's `y.y_i` loop
    // of 4 inside C's row loop), the first its 3-row window rounded up, the next seven one
    // new row rounded up: 4 + 7 x 4 = 32 rows a strip, not 10.
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 4}}, 8, 0)};
    Nests split = build_all_nests(dag, d);
    REQUIRE(split[0]->sliding);
    ScheduleRow c = fz.schedule_features(d, split, 0, 0);
    CHECK(at(c, F::total_points) == Approx(4 * 32 * 64));
    // Split by 1 row, or along x (the window does not slide in x): nothing rounds.
    d.mut(0).stages = {sched({{LoopMode::Split, 16}, {LoopMode::Inner, 0}}, 8, 0)};
    Nests along_x = build_all_nests(dag, d);
    CHECK(at(fz.schedule_features(d, along_x, 0, 0), F::total_points) == Approx(4 * 10 * 64));
}

TEST_CASE("a loop unrolled inside the vectors shares the loads that do not move with it",
          "[features]") {
    // F(x, y, c) = in(x, y, c) * in(x, y, 2), over 64 x 32 x 3; c whole in the inner group
    // (order y, c, x), 8 lanes.
    PipelineDag dag = test::scale_3d(64, 32, 3);
    Stage &st = dag.funcs[0].stages[0];
    st.loads.push_back(test::channel_2_load(st));
    Decisions d(1);
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {
        sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    Featurizer fz(dag);
    Nests n = build_all_nests(dag, d);
    // Both loads move with x: one vector each per vector of points.
    const double vectors = 64.0 * 32 * 3 / 8;
    CHECK(at(fz.schedule_features(d, n, 0, 0), F::dense_load_executions) == 2 * vectors);
    // c unrolled inside the vectors: its three copies load in(x, y, 2) once.
    d.mut(0).stages[0].unrolled_inside = 2;
    n = build_all_nests(dag, d);
    CHECK(at(fz.schedule_features(d, n, 0, 0), F::dense_load_executions) ==
          Approx(vectors + vectors / 3));
}

TEST_CASE("loads invariant in the inner loops are counted once per outer iteration", "[features]") {
    PipelineDag dag = test::transpose_reduce();
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    // Update: r innermost (Halide's default), x outside it, scalar.
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}}, 8, 0),
                       sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 1, 0)};
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    Featurizer fz(dag);
    Nests n = build_all_nests(dag, d);
    ScheduleRow u = fz.schedule_features(d, n, 1, 1);
    // T(x, r) changes every iteration; so does the accumulator S(x): S is a root buffer, which
    // LLVM will not keep in registers across the r loop.
    CHECK(at(u, F::dense_load_executions) == 128 * 64 * 2);
    CHECK(at(u, F::gather_lane_executions) == 0);
    // Vectorized over x with r outside: both loads are contiguous vectors.
    d.mut(1).stages[1] = sched({{LoopMode::Outer, 0}, {LoopMode::Inner, 0}}, 8, 0);
    n = build_all_nests(dag, d);
    u = fz.schedule_features(d, n, 1, 1);
    CHECK(at(u, F::dense_load_executions) == 2 * 128 * 64 / 8);
    // The stencil's three loads of P move with the vector loop: one vector load each.
    PipelineDag st = test::stencil_1d();
    Decisions ds = stencil(Placement::Root);
    Nests ns = build_all_nests(st, ds);
    Featurizer fs(st);
    CHECK(at(fs.schedule_features(ds, ns, 1, 0), F::dense_load_executions) == 3 * 64 / 8);
}

TEST_CASE("a tile-sized accumulator stays in registers with pure loops inside the RVar",
          "[features]") {
    // S per 32-wide tile of O (128 bytes: fits the register budget). Its update runs the RVar
    // outside a loop of 4 vectors along x, which is not one unrolled block: LLVM unrolls that
    // constant loop and promotes the tile, so S is loaded and stored once per pure point
    // (matmul's 16x8 tile with k outermost: docs/COSTMODEL.md, "Finding a mispriced term by
    // replay").
    PipelineDag dag = test::transpose_reduce_with_output();
    Decisions d = s_per_tile_of_o(32, sched({{LoopMode::Middle, 0}, {LoopMode::Inner, 0}}, 8, 0));
    Featurizer fz(dag);
    Nests n = build_all_nests(dag, d);
    ScheduleRow u = fz.schedule_features(d, n, 1, 1);
    CHECK(at(u, F::realizations) == 4);
    CHECK(at(u, F::bytes_written) == 128 * 4);
    // 16 vector loads of the accumulator; T(x, r): 4 vectors x 64 r x 4 tiles.
    CHECK(at(u, F::dense_load_executions) == 16 + 4 * 64 * 4);
    // A tile too big for the registers (all 128 x at once, 512 bytes > 384 on AVX2) is
    // stored and reloaded every reduction step: accumulator and T, 16 vectors x 64 r each.
    d.mut(2).stages = {sched({{LoopMode::Split, 128}}, 8, 0)};
    n = build_all_nests(dag, d);
    u = fz.schedule_features(d, n, 1, 1);
    CHECK(at(u, F::bytes_written) == 128 * 64 * 4);
    CHECK(at(u, F::dense_load_executions) == 2 * 16 * 64);
}

TEST_CASE("an update accumulating over inner RVars stores once per pure point", "[features]") {
    PipelineDag dag = test::transpose_reduce_with_output();
    // One 16-wide tile of S per x_o of O: 64 bytes, registers.
    Decisions d = s_per_tile_of_o(16, sched({{LoopMode::Middle, 0}, {LoopMode::Inner, 0}}, 8, 0));
    d.mut(1).stages[1].unroll = 2; // r, [x: 16 lanes = 2 vectors, one block]
    Featurizer fz(dag);
    Nests n = build_all_nests(dag, d);
    ScheduleRow u = fz.schedule_features(d, n, 1, 1);
    CHECK(at(u, F::realizations) == 8);
    CHECK(at(u, F::bytes_written) == 128 * 4);
    // The accumulator's load is hoisted the same way: 2 vectors per block of 16 x.
    // T(x, r) is loaded for every r: 2 vectors x 64 r x 8 blocks.
    CHECK(at(u, F::dense_load_executions) == 8 * 2 + 8 * 64 * 2);
    // With S at root, every reduction step stores (and reloads) the accumulator.
    d.mut(1).placement = Placement::Root;
    d.mut(1).at_func = d.mut(1).at_level = -1;
    n = build_all_nests(dag, d);
    CHECK(at(fz.schedule_features(d, n, 1, 1), F::bytes_written) == 128 * 64 * 4);
}

TEST_CASE("a producer nested in a sliding consumer runs only where the consumer computes",
          "[features]") {
    // Q(x, y) = in(x, y); P = stencil of Q along y; C = stencil of P along y (stencil_2d with a
    // pointwise Q in front). P slides down 8-row strips of C (computed per row, stored per
    // strip); Q is nested per row of P. P computes 10 rows per strip instead of 8 x 3, so Q
    // runs for 10/24 of P's realizations.
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    dag.inputs.push_back(test::input({{0, 63}, {-2, 33}}));
    auto make = [&](int id, const std::string &name, Box64 b, ProducerKind kind, int producer,
                    int64_t lo, int64_t hi) {
        FuncNode f = test::func(id, name, b);
        f.can_inline = id != 2;
        f.is_output = id == 2;
        Stage s;
        s.func = id;
        s.name = name;
        s.loops = {test::pure_loop("x", 0, b[0].min, b[0].max),
                   test::pure_loop("y", 1, b[1].min, b[1].max)};
        s.ops.at(OpKind::Add, TypeClass::F32) = 2;
        s.loads = {test::simple_load(kind, producer, hi - lo + 1, 2,
                                     {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
        f.stages.push_back(s);
        dag.funcs.push_back(f);
        dag.edges.push_back(
            test::offset_edge(id, 0, kind, producer, {0, lo}, {0, hi}, int(hi - lo + 1)));
    };
    make(0, "Q", {{0, 63}, {-2, 33}}, ProducerKind::Input, 0, 0, 0);
    make(1, "P", {{0, 63}, {-1, 32}}, ProducerKind::Func, 0, -1, 1);
    make(2, "C", {{0, 63}, {0, 31}}, ProducerKind::Func, 1, -1, 1);
    dag.outputs = {2};
    dag.link();
    Decisions d(3);
    d.mut(2).placement = Placement::Root;
    d.mut(2).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 0)}; // y_o, y_i, x
    d.mut(1).placement = Placement::At;
    d.mut(1).at_func = 2;
    d.mut(1).at_level = 1;
    d.mut(1).store_level = 0;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)}; // y, x
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 0; // per row of P
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    Nests n = build_all_nests(dag, d);
    REQUIRE(n[1]->sliding);
    CHECK(n[1]->realizations == 32);
    CHECK(box_volume(n[1]->region) == 3 * 64);
    // P computes 4 strips x 10 rows of its 32 x 3-row realizations: Q runs 40 rows' worth.
    CHECK(box_volume(n[0]->region) == 3 * 64); // one row of P needs three of Q
    CHECK(n[0]->realizations == Approx(32 * 3 * (4.0 * 10 / (32 * 3))));
    // Without the window, Q runs for every row of every realization of P.
    d.mut(1).store_level = -1;
    n = build_all_nests(dag, d);
    CHECK(n[0]->realizations == 32 * 3);
}

TEST_CASE("index clamps: in a partitioned loop's last vector only, per point in a short one, "
          "hoisted otherwise",
          "[features]") {
    // P(x, y) = in(clamp(x), clamp(y)) * 2, 64 x 34 points at root: 272 vectors of 8 lanes.
    auto ops = [](bool likely, LoopTiling x, int lanes = 8) {
        PipelineDag dag = test::stencil_2d_clamped(likely);
        Decisions d(2);
        d.mut(1).placement = Placement::Root;
        d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
        d.mut(0).placement = Placement::Root;
        d.mut(0).stages = {sched({x, {LoopMode::Inner, 0}}, lanes, 0)};
        Nests n = build_all_nests(dag, d);
        return at(Featurizer(dag).schedule_features(d, n, 0, 0), F::ops_per_point);
    };
    const LoopTiling whole{LoopMode::Inner, 0}, block{LoopMode::Split, 8},
        half{LoopMode::Split, 32};
    // The multiply, plus y's clamp once per row (34 rows x 2 / 272 vectors); x's `likely`
    // clamp drops out of the 64-point loop's steady state and stays in its epilogue, the last
    // of its 8 vectors.
    CHECK(ops(true, whole) == Approx(1 + 2.0 / 8 + 34.0 * 2 / 272));
    // A plain clamp of the vector loop's variable is a clamped ramp, which Halide marks
    // likely itself: partitioned alike.
    CHECK(ops(false, whole) == Approx(1 + 2.0 / 8 + 34.0 * 2 / 272));
    // In a scalar loop there is no ramp: without `likely` x's clamp runs with every point.
    CHECK(ops(false, whole, 1) == Approx(1 + 2 + 34.0 * 2 / 2176));
    CHECK(ops(true, whole, 1) == Approx(1 + 34.0 * 2 / 2176));
    // x split by 8 (the order x.outer, y, x.inner): Halide partitions x.outer, whose steady
    // iterations run the inner vector without the clamp, all but the last of the eight; y's
    // clamp runs once per row of each of the 8 column blocks.
    CHECK(ops(true, block) == Approx(1 + 2.0 / 8 + 8 * 34.0 * 2 / 272));
    // Split by 32, x.outer has two iterations, each touching an edge: no steady state, and
    // the clamp stays in every vector.
    CHECK(ops(true, half) == Approx(1 + 2 + 2 * 34.0 * 2 / 272));
}

TEST_CASE("the steady state of a likely clamp's loop holds only when its outer loop has one",
          "[features]") {
    // P(x, y) = in(clamp(likely x), clamp(likely y)) * 2 at root, 64 x 34 points, 8 lanes, x
    // whole: Halide partitions y's outermost loop first and x's only in y's steady state. With
    // y split by 17 that loop has two iterations, both touching an edge: no steady state, so
    // x's clamp stays in every vector and the loads through it gather.
    auto row = [](int y_split) {
        PipelineDag dag = test::stencil_2d_clamped();
        Decisions d(2);
        d.mut(1).placement = Placement::Root;
        d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
        d.mut(0).placement = Placement::Root;
        d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, y_split}}, 8, 0)};
        Nests n = build_all_nests(dag, d);
        return Featurizer(dag).schedule_features(d, n, 0, 0);
    };
    const ScheduleRow steady = row(8), none = row(17); // y.outer: 5 and 2 iterations
    CHECK(at(steady, F::ops_per_point) == Approx(1 + 2.0 / 8 + 34.0 * 2 / 272));
    // In the steady state only x's last vector gathers: 40 rows (34 rounded up to whole
    // tiles of 8) x 8 lanes, each half a lane (the 8.7 KiB input stays in L1).
    CHECK(at(steady, F::gather_lane_executions) == Approx(40 * 8 * kL1TableGatherLane));
    CHECK(at(none, F::ops_per_point) == Approx(1 + 2 + 34.0 * 2 / 272));
    CHECK(at(none, F::gather_lane_executions) > 0);
    CHECK(at(none, F::dense_load_executions) < at(steady, F::dense_load_executions));
}

TEST_CASE("sin costs per lane (Halide 14 on x86 calls libm per lane), exp per vector",
          "[features]") {
    // F(x, y, c) = sin(in(x, y, c)) * 2 over 64 x 4 x 1, vectorized by 8 or not at all; with
    // exp instead of sin the call is a vector polynomial: once per vector.
    auto ops = [](int lanes, bool scalarized) {
        PipelineDag dag = test::scale_3d(64, 4, 1);
        dag.funcs[0].stages[0].ops.at(OpKind::Transcendental, TypeClass::F32) = 1;
        dag.funcs[0].stages[0].scalarized_calls = scalarized ? 1 : 0;
        Decisions d(1);
        d.mut(0).placement = Placement::Root;
        d.mut(0).stages = {
            sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, lanes, 0)};
        Nests n = build_all_nests(dag, d);
        return at(Featurizer(dag).schedule_features(d, n, 0, 0), F::ops_per_point);
    };
    const double call = op_kind_cost(OpKind::Transcendental);
    CHECK(ops(1, true) == Approx(1 + call));     // per point: the multiply and one call
    CHECK(ops(8, true) == Approx(1 + 8 * call)); // per vector: one multiply, eight calls
    CHECK(ops(8, false) == Approx(1 + call));    // exp: one vector call
}

TEST_CASE("a register tile's unrolled loops multiply into unroll_outer_extent", "[features]") {
    // F over 8 x 3 x 4, one vector of x by y by c. Unrolling y and c makes one block of 12
    // copies, each loading its own vector of the input: still 12 vector loads in all.
    PipelineDag dag = test::scale_3d(8, 3, 4);
    Decisions d(1);
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {
        sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    Featurizer fz(dag);
    for (int loops : {0, 1, 2}) {
        d.mut(0).stages[0].unroll_outer = loops;
        Nests n = build_all_nests(dag, d);
        ScheduleRow r = fz.schedule_features(d, n, 0, 0);
        CHECK(at(r, F::unroll_outer_extent) == (loops == 0 ? 1 : loops == 1 ? 3 : 12));
        CHECK(at(r, F::dense_load_executions) == 12);
    }
}

TEST_CASE("an update's register tile is one body inside the loop outside its unrolled loops",
          "[features]") {
    // S per 16-wide tile of O (64 bytes: registers); its update runs x_o (2), r (64), x_i (8
    // lanes). Unrolling r makes each x_o step one straight-line body of 64 vectors.
    PipelineDag dag = test::transpose_reduce_with_output();
    Decisions d = s_per_tile_of_o(16, sched({{LoopMode::Middle, 0}, {LoopMode::Split, 8}}, 8, 0));
    Featurizer fz(dag);
    const double points = 128 * 64;
    for (int loops : {0, 1}) {
        d.mut(1).stages[1].unroll_outer = loops;
        Nests n = build_all_nests(dag, d);
        ScheduleRow u = fz.schedule_features(d, n, 1, 1);
        CHECK(at(u, F::total_points) == points);
        CHECK(at(u, F::unroll_outer_extent) == (loops ? 64 : 1));
        CHECK(at(u, F::inner_loop_iterations) == (loops ? points / (64 * 8) : points / 8));
    }
    // A pure stage's unrolled rows stay one iteration per vector (not a register tile).
    PipelineDag cube = test::scale_3d(8, 3, 4);
    Decisions c(1);
    c.mut(0).placement = Placement::Root;
    c.mut(0).stages = {
        sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    c.mut(0).stages[0].unroll_outer = 2;
    Featurizer fc(cube);
    Nests nc = build_all_nests(cube, c);
    CHECK(at(fc.schedule_features(c, nc, 0, 0), F::inner_loop_iterations) == 12);
}
