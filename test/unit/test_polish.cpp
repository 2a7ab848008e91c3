// The polishes after the beam (search/Polish.h): each step kept only where the whole schedule
// is predicted cheaper by the margin.
#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/Polish.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

using namespace sextant;

namespace {

/** test::stencil_chain(2) (in -> P0 -> P1 -> C): C at root, P0 per iteration of P1's loop,
 * P1 at root or, `p1_at_c`, per iteration of C's loop. */
Decisions chain_decisions(bool p1_at_c) {
    Decisions d(3);
    d.mut(2).placement = Placement::Root;
    d.mut(2).stages = {test::sched({{LoopMode::Split, 32}}, 8, 1)};
    if (p1_at_c) {
        d.mut(1).placement = Placement::At;
        d.mut(1).at_func = 2;
        d.mut(1).at_level = 0;
    } else {
        d.mut(1).placement = Placement::Root;
    }
    d.mut(1).stages = {test::sched({{LoopMode::Split, 16}}, 8, p1_at_c ? 0 : 1)};
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 0;
    d.mut(0).stages = {test::sched({{LoopMode::Inner, 0}}, 8, 0)};
    return d;
}

/** A cost of 1 plus, for each Func inlined, its entry of `price` (negative: inlining pays). */
test::CostOf inlining_prices(std::vector<double> price) {
    return test::CostOf([price](const State &s) {
        double cost = 1;
        for (size_t f = 0; f < s.decisions.size() && f < price.size(); f++)
            if (s.decisions[f].placement == Placement::Inline) cost += price[f];
        return cost;
    });
}

/** test::stencil_2d() (in -> P -> C, 64 x 32): P at root over whole rows, C at root in
 * 16-wide column strips (x:split16) with its y loop in `y` mode and `parallel` loops parallel. */
Decisions column_strips(LoopMode y, int parallel) {
    Decisions d(2);
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {test::sched({{LoopMode::Split, 16}, {y, 0}}, 8, parallel)};
    return d;
}

/** `d` replayed as the polishes replay their steps, and scored by `eval`. */
StatePtr scored(const SearchSpace &space, StateEvaluator &eval, const Decisions &d) {
    StatePtr s = space.replay(to_schedule_text(space.dag(), d));
    eval.evaluate({s.get()});
    return s;
}

} // namespace

TEST_CASE("the polish keeps a loop unrolled inside the vectors only where it is cheaper",
          "[search]") {
    // F(x, y, c) = in(x, y, c) * in(x, y, 2) over 64 x 32 x 3, at root, order y, c, x with 8
    // lanes: c unrolled inside the vectors loads in(x, y, 2) once for the three channels.
    PipelineDag dag = test::scale_3d(64, 32, 3);
    Stage &st = dag.funcs[0].stages[0];
    const Load alpha = test::channel_2_load(st);
    auto pick = [&](const PipelineDag &g) {
        SearchSpace space(g);
        AnalyticalModel model(g.machine.parallelism, double(g.machine.last_level_cache_bytes));
        ModelEvaluator eval(g, model);
        FuncSched f;
        f.placement = Placement::Root;
        f.stages = {
            test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
        StatePtr s = space.make_child(*space.initial_state(), f);
        eval.evaluate({s.get()});
        PolishStats ps;
        StatePtr p = polish_unrolled_inside(space, eval, s, 0.0, &ps);
        CHECK(ps.tried == 1);
        CHECK(p->cost <= s->cost);
        return p;
    };
    // Without the shared load the copies save nothing: the pick stays as it was.
    CHECK(pick(dag)->decisions[0].stages[0].unrolled_inside == -1);
    st.loads.push_back(alpha);
    CHECK(pick(dag)->decisions[0].stages[0].unrolled_inside == 2);
    // Offered while the copies' lanes fill at most 8 AVX2 registers of floats: 8 lanes x 3
    // copies do (3 registers), 32 lanes x 2 unrolled x 3 do not (24).
    StageSched ss =
        test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0);
    CHECK(unrolled_inside_fits_registers(st, ss, 2, 256));
    ss.vector_width = 32;
    ss.unroll = 2;
    CHECK(!unrolled_inside_fits_registers(st, ss, 2, 256));
    CHECK(unrolled_inside_fits_registers(st, ss, 2, 1024));
}

TEST_CASE("the polish inlines Funcs where the whole schedule is cheaper by the margin",
          "[search]") {
    // in -> P0 -> P1 -> C: C at root, P1 at root, P0 computed per iteration of P1's loop.
    // Each Func inlined takes a quarter off: both go (P0 moving to root with P1 inlined first,
    // or inlined before it).
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space(dag);
    test::CostOf eval = inlining_prices({-0.25, -0.25, -0.25});
    StatePtr pick = scored(space, eval, chain_decisions(false));
    REQUIRE(pick->cost == Approx(1.0));
    PolishStats ps;
    StatePtr p = polish_inlined(space, eval, pick, 0.005, &ps);
    CHECK(ps.kept == 2);
    CHECK(p->decisions[0].placement == Placement::Inline);
    CHECK(p->decisions[1].placement == Placement::Inline);
    CHECK(p->decisions[2].placement == Placement::Root); // the output is never inlined
    CHECK(p->cost == Approx(0.5));
    // A margin no step clears: the pick as it was.
    CHECK(polish_inlined(space, eval, pick, 0.5)->cost == Approx(1.0));
}

TEST_CASE("the polish inlines a Func others are computed at, moving them where it was",
          "[search]") {
    // in -> P0 -> P1 -> C: C at root, P1 per iteration of C's loop, P0 per iteration of P1's.
    // P1 inlined takes a quarter off, P0 inlined adds half: P1 goes, and P0 is then computed
    // where P1 was (bench local_laplacian's `colour`, with the finest blend and upsample
    // computed at it, inlined: 0.96-0.99x in three 5-9 round A/B runs).
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space(dag);
    test::CostOf eval = inlining_prices({0.5, -0.25});
    StatePtr pick = scored(space, eval, chain_decisions(true));
    PolishStats ps;
    StatePtr p = polish_inlined(space, eval, pick, 0.005, &ps);
    CHECK(ps.kept == 1);
    CHECK(p->decisions[1].placement == Placement::Inline);
    CHECK(p->decisions[0].placement == Placement::At);
    CHECK(p->decisions[0].at_func == 2);
    CHECK(p->decisions[0].at_level == 0);
    CHECK(p->cost == Approx(0.75));
}

TEST_CASE("the polish splits a root Func's loop finer only where it is cheaper by the margin",
          "[search]") {
    // stencil_1d's C (64 points, x split by 32, P inlined), priced by its tile alone.
    PipelineDag dag = test::stencil_1d();
    SearchSpace space(dag);
    test::CostOf eval([](const State &s) {
        const FuncSched &c = s.decisions[1];
        return c.stages.empty() ? 0.0 : double(c.stages[0].loops[0].tile) / 64;
    });
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {test::sched({{LoopMode::Split, 32}}, 8, 1)};
    d.mut(0).placement = Placement::Inline;
    StatePtr pick = scored(space, eval, d);
    PolishStats ps;
    StatePtr p = polish_root_splits(space, eval, {pick}, 0.005, &ps);
    CHECK(ps.tried == 2); // tiles 8 and 16: only finer ones
    CHECK(ps.kept == 1);
    CHECK(p->decisions[1].stages[0].loops[0].tile == 8);
    CHECK(p->cost == Approx(0.125));
    // A margin the finest does not clear (0.125 is not 90% below 0.5): the pick itself.
    CHECK(polish_root_splits(space, eval, {pick}, 0.9) == pick);

    // Vectors of 8 unrolled twice fill 16 points of the split: no finer tile is tried.
    d.mut(1).stages[0].unroll = 2;
    StatePtr unrolled = scored(space, eval, d);
    PolishStats pu;
    CHECK(polish_root_splits(space, eval, {unrolled}, 0.005, &pu)
              ->decisions[1]
              .stages[0]
              .loops[0]
              .tile == 16);
    CHECK(pu.tried == 1);

    // Split by 8 under those 16 lanes, the output C would be written past its end: a replayed
    // schedule text says so.
    d.mut(1).stages[0].loops[0].tile = 8;
    CHECK_THROWS_WITH(space.replay(to_schedule_text(dag, d)),
                      Catch::Contains("output Func 'C' stage 0 splits loop 'x' by 8 but "
                                      "vectorizes and unrolls 16 points"));
}

TEST_CASE("the polish narrows a large vectorized body within the tolerance, never a small one",
          "[search]") {
    // in -> P0 -> P1 -> C, each at root in 32-point strips of 16 lanes unrolled twice: 4 AVX2
    // registers of floats a value. P1's body is large (300 adds and 9 loads a point: 309 x 4
    // registers past kNarrowedBodyWork), the others' small (17 x 4).
    PipelineDag dag = test::stencil_chain(2);
    dag.funcs[1].stages[0].ops.at(OpKind::Add, TypeClass::F32) = 300;
    SearchSpace space(dag);
    Decisions d(3);
    for (size_t f = 0; f < 3; f++) {
        StageSched ss = test::sched({{LoopMode::Split, 32}}, 16, 0);
        ss.unroll = 2;
        d.mut(f).placement = Placement::Root;
        d.mut(f).stages = {ss};
    }
    StatePtr pick = space.replay(to_schedule_text(dag, d));
    auto polished = [&](double dearer) {
        // Each narrowed stage makes the schedule `dearer` (a fraction of the pick's cost).
        test::CostOf eval([&](const State &s) {
            double cost = 1;
            for (size_t f = 0; f < s.decisions.size(); f++)
                if (s.decisions[f].stages[0].vector_width < 16) cost += dearer;
            return cost;
        });
        eval.evaluate({pick.get()});
        PolishStats ps;
        StatePtr p = polish_narrowed(space, eval, pick, kNarrowedTolerance, &ps);
        CHECK(ps.tried == 1); // P1 only
        return p;
    };
    StatePtr p = polished(0.015);
    CHECK(p->decisions[1].stages[0].vector_width == 8); // one AVX2 register of floats
    CHECK(p->decisions[1].stages[0].unroll == 1);
    for (size_t f : {0, 2}) {
        CHECK(p->decisions[f].stages[0].vector_width == 16);
        CHECK(p->decisions[f].stages[0].unroll == 2);
    }
    // Past the tolerance the pick stays.
    p = polished(0.025);
    CHECK(p->decisions[1].stages[0].vector_width == 16);
    CHECK(p->decisions[1].stages[0].unroll == 2);
}

TEST_CASE("the polish walks column strips in rows within the tolerance, the cheapest of them",
          "[search]") {
    // C's 16-wide column strips over all 32 rows (x:split16 y:inner), the strips parallel.
    PipelineDag dag = test::stencil_2d();
    SearchSpace space(dag);
    Decisions d = column_strips(LoopMode::Inner, 1);
    StatePtr pick = space.replay(to_schedule_text(dag, d));
    // Rows cost `dearer` more than the strips; 16-row strips a little less than other rows.
    auto polished = [&](double dearer, PolishStats &ps) {
        test::CostOf eval([&](const State &s) {
            const StageSched &c = s.decisions[1].stages[0];
            if (c.loops[0].mode != LoopMode::Inner) return 1.0;
            return 1 + dearer - (c.loops[1].tile == 16 ? dearer / 2 : 0);
        });
        eval.evaluate({pick.get()});
        return polish_row_sweeps(space, eval, pick, kRowSweepsTolerance, &ps);
    };
    PolishStats ps;
    StatePtr p = polished(0.03, ps);
    // Whole rows unsplit (y, outermost now, the parallel loop), in 8- and 16-row strips (not
    // 32: all the rows); P walks rows already.
    CHECK(ps.tried == 3);
    CHECK(ps.kept == 1);
    const StageSched &c = p->decisions[1].stages[0];
    CHECK(c.loops[0].mode == LoopMode::Inner);
    CHECK(c.loops[1].mode == LoopMode::Split);
    CHECK(c.loops[1].tile == 16);
    CHECK(c.parallel == 1);
    CHECK(p->decisions[0].stages[0] == d[0].stages[0]);
    // Past the tolerance (the 16-row strips 2.5% dearer) the pick stays.
    PolishStats past;
    CHECK(polished(0.05, past) == pick);
    CHECK(past.kept == 0);
    // A Func computed at C's strips keeps them.
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 0;
    pick = space.replay(to_schedule_text(dag, d));
    PolishStats anchored;
    CHECK(polished(0.0, anchored) == pick);
    CHECK(anchored.tried == 0);
}

TEST_CASE("the polish puts a reordered loop back in storage order within the tolerance",
          "[search]") {
    // C's 16-wide column strips with its rows moved outside them (x:split16 y:outer: y, x_o,
    // x_i).
    PipelineDag dag = test::stencil_2d();
    SearchSpace space(dag);
    Decisions d = column_strips(LoopMode::Outer, 0);
    // Storage order (y inner: x_o, y, x_i) costs `dearer` more than the pick.
    auto polished = [&](const Decisions &from, double dearer, PolishStats &ps) {
        StatePtr pick = space.replay(to_schedule_text(dag, from));
        test::CostOf eval([&](const State &s) {
            return s.decisions[1].stages[0].loops[1].mode == LoopMode::Outer ? 1.0 : 1 + dearer;
        });
        eval.evaluate({pick.get()});
        return std::make_pair(pick,
                              polish_storage_order(space, eval, pick, kStorageOrderTolerance, &ps));
    };
    PolishStats tie;
    auto [pick, p] = polished(d, kStorageOrderTolerance / 2, tie);
    CHECK(tie.tried == 1);
    CHECK(tie.kept == 1);
    CHECK(p->decisions[1].stages[0].loops[1].mode == LoopMode::Inner);
    CHECK(p->decisions[1].stages[0].loops[0] == d[1].stages[0].loops[0]);
    CHECK(p->decisions[0].stages[0] == d[0].stages[0]);
    // Past the tolerance the reorder stays.
    PolishStats past;
    auto [pick2, q] = polished(d, kStorageOrderTolerance * 2, past);
    CHECK(q == pick2);
    CHECK(past.tried == 1);
    CHECK(past.kept == 0);
    // Unsplit, y is outermost either way: nothing to put back, nothing scored.
    d.mut(1).stages = {test::sched({{LoopMode::Inner, 0}, {LoopMode::Outer, 0}}, 8, 0)};
    PolishStats outermost;
    auto [pick3, r] = polished(d, 0.0, outermost);
    CHECK(r == pick3);
    CHECK(outermost.tried == 0);
}
