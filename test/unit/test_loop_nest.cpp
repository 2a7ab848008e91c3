#include "TinyDags.h"
#include "search/BeamSearch.h"
#include "search/LoopNest.h"
#include "search/Tails.h"

#include <catch2/catch.hpp>

using namespace sextant;

namespace {

using test::sched;

/** stencil_1d's decisions: C at root in 16-point tiles, P computed per tile with `p_loop`. */
Decisions p_per_tile_of_c(LoopTiling p_loop) {
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Split, 16}}, 8, 1)};
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 0;
    d.mut(0).stages = {sched({p_loop}, 8, 0)};
    return d;
}

} // namespace

TEST_CASE("stage nest orders outer group before inner group", "[search]") {
    PipelineDag dag = test::transpose_reduce();
    const Stage &t = dag.stage(0, 0); // loops x, y
    StageNest n = make_stage_nest(t, sched({{LoopMode::Split, 32}, {LoopMode::Outer, 0}}, 8, 1),
                                  t.full_loop_box());
    REQUIRE(n.order.size() == 3);
    CHECK(n.order[0].stage_loop == 1); // y (outer group, whole)
    CHECK(n.order[0].extent == 64);
    CHECK(n.order[1].stage_loop == 0); // x_o
    CHECK(n.order[1].extent == 4);
    CHECK(n.order[1].span == 32);
    CHECK(n.order[2].extent == 32); // x_i
    CHECK(n.order[2].vectorized);
    CHECK(n.order[0].parallel);
    CHECK(n.parallel_tasks == 64);
    // One iteration of x_o covers 32 x values of one row.
    Box64 b = box_at_level(n, 1);
    CHECK(b[0] == Interval64{0, 31});
    CHECK(b[1] == Interval64{0, 0});
}

TEST_CASE("compute_at region and realizations follow the consumer tile", "[search]") {
    PipelineDag dag = test::stencil_1d();
    Decisions d = p_per_tile_of_c({LoopMode::Inner, 0});
    Nests nests = build_all_nests(dag, d);
    REQUIRE(nests[0]);
    CHECK(nests[0]->region == Box64{{-1, 16}});
    CHECK(nests[0]->realizations == 4);
    CHECK(nests[0]->inside_parallel);
    CHECK(effective_consumers(dag, d, 0) == StageRefs{{1, 0}});
}

TEST_CASE("a region whose size changes across the loops is priced at its middle iteration's size",
          "[search]") {
    // stencil_2d, but C reads P's row -1 at every y besides its own rows: P's footprint in y
    // is [-1, y_max + 1], a hull of a fixed row and a moving window (random pipeline 200127:
    // a buffer read through a transpose and directly, priced at its first iteration's size).
    PipelineDag dag = test::stencil_2d();
    Edge &e = dag.edges[1];
    REQUIRE(e.producer == 0);
    e.min[1] = BoundExpr::binary(
        BoundExpr::Op::Min,
        BoundExpr::binary(BoundExpr::Op::Add, BoundExpr::loop_min(1), BoundExpr::constant(-1)),
        BoundExpr::constant(-1));
    dag.link();

    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 0)};
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 0; // C's y_o: 4 iterations of 8 rows
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    Nests nests = build_all_nests(dag, d);
    REQUIRE(nests[0]);
    const StageNest &c = nests[1]->stages[0];
    CHECK(box_at_level(c, 0)[1] == Interval64{0, 7});
    CHECK(box_at_level(c, 0, true)[1] == Interval64{8, 15});
    // First iteration rows [-1, 8] (10), the middle (second of four) [-1, 16] (18), the last
    // [-1, 32] (34): priced at the middle's 18 rows.
    CHECK(nests[0]->region == Box64{{0, 63}, {-1, 16}});
    CHECK(nests[0]->realizations == 4);

    // Without the fixed row, the window moves at one size: the first iteration's region.
    PipelineDag plain = test::stencil_2d();
    Nests plain_nests = build_all_nests(plain, d);
    CHECK(plain_nests[0]->region == Box64{{0, 63}, {-1, 8}});

    // Read through a clamp at the pipeline's edge (rows y-1..y+1 of P clamped to [0, 31], a
    // boundary condition), the first strip's footprint is one row short: rows [0, 8], every
    // inner strip 10 rows. Priced at the first, the buffer was a row short in every strip
    // (bench depthwise_separable_conv's `lambda_0`: 14 KiB on the stack priced, 28 KiB from
    // malloc allocated).
    PipelineDag clamped = test::stencil_2d();
    using Op = BoundExpr::Op;
    clamped.edges[1].min[1] = BoundExpr::binary(
        Op::Max, BoundExpr::binary(Op::Add, BoundExpr::loop_min(1), BoundExpr::constant(-1)),
        BoundExpr::constant(0));
    clamped.edges[1].max[1] = BoundExpr::binary(
        Op::Min, BoundExpr::binary(Op::Add, BoundExpr::loop_max(1), BoundExpr::constant(1)),
        BoundExpr::constant(31));
    clamped.link();
    Nests clamped_nests = build_all_nests(clamped, d);
    CHECK(clamped_nests[0]->region == Box64{{0, 63}, {0, 9}});
}

TEST_CASE("a region read by two consumers along different rows is priced at its middle "
          "iteration's size",
          "[search]") {
    // in -> P(x, y) -> A(x, y) = P(x, 0) -> C(x, y) = A(x, y) + P(x, y), all 64 x 64. With A
    // and P computed per 8-row strip of C, P's hull is rows [0, 8k + 7] in strip k: each
    // consumer's footprint moves at one size, their hull does not.
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    dag.inputs.push_back(test::input({{0, 63}, {0, 63}}));
    auto add_func = [&](int id, const char *name, std::vector<Load> loads) {
        FuncNode f = test::func(id, name, {{0, 63}, {0, 63}});
        f.can_inline = true;
        Stage st;
        st.func = id;
        st.name = name;
        st.loops = {test::pure_loop("x", 0, 0, 63), test::pure_loop("y", 1, 0, 63)};
        st.ops.at(OpKind::Add, TypeClass::F32) = 1;
        st.loads = std::move(loads);
        f.stages.push_back(st);
        dag.funcs.push_back(f);
    };
    const std::vector<JacobianEntry> identity = {
        {1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}};
    add_func(0, "P", {test::simple_load(ProducerKind::Input, 0, 1, 2, identity)});
    add_func(1, "A", {test::simple_load(ProducerKind::Func, 0, 1, 2, identity)});
    add_func(2, "C",
             {test::simple_load(ProducerKind::Func, 1, 1, 2, identity),
              test::simple_load(ProducerKind::Func, 0, 1, 2, identity)});
    dag.funcs[2].is_output = true;
    dag.outputs = {2};
    dag.edges.push_back(test::offset_edge(0, 0, ProducerKind::Input, 0, {0, 0}, {0, 0}, 1));
    Edge row0; // A reads P(x, 0)
    row0.consumer_func = 1;
    row0.consumer_stage = 0;
    row0.producer = 0;
    row0.calls = 1;
    row0.min = {BoundExpr::loop_min(0), BoundExpr::constant(0)};
    row0.max = {BoundExpr::loop_max(0), BoundExpr::constant(0)};
    dag.edges.push_back(row0);
    dag.edges.push_back(test::offset_edge(2, 0, ProducerKind::Func, 1, {0, 0}, {0, 0}, 1));
    dag.edges.push_back(test::offset_edge(2, 0, ProducerKind::Func, 0, {0, 0}, {0, 0}, 1));
    dag.link();

    Decisions d(3);
    d.mut(2).placement = Placement::Root;
    d.mut(2).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 0)};
    for (int f : {0, 1}) {
        d.mut(f).placement = Placement::At;
        d.mut(f).at_func = 2;
        d.mut(f).at_level = 0; // C's y_o: 8 strips
        d.mut(f).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    }
    Nests nests = build_all_nests(dag, d);
    REQUIRE(nests[0]);
    CHECK(nests[1]->region == Box64{{0, 63}, {0, 7}});
    // Strip 0 needs rows [0, 7], strip 7 rows [0, 63]; the middle strip (3) rows [0, 31].
    CHECK(nests[0]->region == Box64{{0, 63}, {0, 31}});
    CHECK(nests[0]->realizations == 8);
}

TEST_CASE("a pure split wider than the region computes and stores the whole step", "[search]") {
    // P is computed per 16-point tile of C and needs 18 points of it: split by 32, Halide's
    // last tile, shifted inwards, starts 14 points before the region (bench interpolate's
    // `down_x_1`: 32 rows computed per strip that needs 17, 1.6x the pick's time).
    PipelineDag dag = test::stencil_1d();
    auto nests_with_p_tile = [&](int64_t tile) {
        return build_all_nests(dag, p_per_tile_of_c({LoopMode::Split, tile}));
    };
    Nests wide = nests_with_p_tile(32);
    REQUIRE(wide[0]);
    CHECK(wide[0]->region == Box64{{-1, 16}}); // what C needs
    CHECK(wide[0]->stages[0].loop_box == Box64{{-15, 16}});
    CHECK(wide[0]->alloc_points == 32);
    REQUIRE(wide[0]->stages[0].order.size() == 2);
    CHECK(wide[0]->stages[0].order[1].extent == 32);
    // A split within the region leaves it as it is (its last tile overlaps the one before).
    Nests narrow = nests_with_p_tile(8);
    CHECK(narrow[0]->stages[0].loop_box == Box64{{-1, 16}});
    CHECK(narrow[0]->alloc_points == 18);
    // The output's region is its buffer's: never grown.
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {sched({{LoopMode::Split, 128}}, 8, 1)};
    d.mut(0).placement = Placement::Root;
    d.mut(0).stages = {sched({{LoopMode::Inner, 0}}, 8, 0)};
    CHECK(shifted_in_region(dag, d, 1, Box64{{0, 63}}) == Box64{{0, 63}});
}

TEST_CASE("required regions look through inlined Funcs", "[search]") {
    PipelineDag dag = test::stencil_1d();
    Decisions d(2);
    d.mut(0).placement = Placement::Inline;
    Box64 acc(1);
    required_region(dag, d, {1, 0}, Box64{{10, 19}}, ProducerKind::Input, 0, &acc);
    CHECK(acc == Box64{{9, 20}});
}

namespace {

/** Scores every state 0 and checks that each placed Func's nest is what its decisions build
 * from scratch (no placement shared with a sibling). */
class RebuildsNests : public StateEvaluator {
public:
    explicit RebuildsNests(const PipelineDag &dag) : dag_(dag) {}
    void evaluate(const std::vector<State *> &states) override {
        for (State *s : states) {
            for (size_t f = 0; f < dag_.funcs.size(); f++) {
                const NestPtr &n = s->nests[f];
                if (!n) continue;
                const NestPtr fresh = build_func_nest(dag_, s->decisions, s->nests, int(f));
                checked++;
                if (fresh->alloc_points != n->alloc_points || fresh->region != n->region)
                    mismatched++;
                if (n->alloc_points > double(box_volume(n->region))) grown++;
            }
            s->cost = 0;
            s->dirty.clear();
        }
    }
    int checked = 0, mismatched = 0, grown = 0;

private:
    const PipelineDag &dag_;
};

} // namespace

TEST_CASE("an update split that rounds its Func's buffer up is priced in every sibling",
          "[search]") {
    // S is computed per tile of O; its update's x split rounds S's buffer up to whole tiles.
    // Siblings that differ only in that tiling share one placement: the rounding is theirs.
    PipelineDag dag = test::transpose_reduce_with_output(96);
    dag.funcs[1].stages[1].rounds_up = {0, 1};
    SearchSpace space(dag);
    RebuildsNests eval(dag);
    BeamSearchOptions opt;
    opt.beam_size = 64;
    opt.num_passes = 2;
    REQUIRE(beam_search(space, eval, opt, nullptr));
    CHECK(eval.checked > 100);
    CHECK(eval.grown > 0); // some tiling of S's update rounds its buffer up
    CHECK(eval.mismatched == 0);
}
