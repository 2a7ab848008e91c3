// Where the search may compute a Func: the vector-tail hazard and sites at loops enclosing the
// uses (through nested Funcs). The consumer re-tiled for its producer: test_search_retilings.cpp.
#include "PlacementHelpers.h"
#include "TinyDags.h"
#include "search/Directives.h"
#include "search/ScheduleConstructs.h"
#include "search/ScheduleText.h"
#include "search/SearchSpace.h"

#include <catch2/catch.hpp>

#include <initializer_list>
#include <set>
#include <string>
#include <tuple>

using namespace sextant;
using test::children_after;
using test::downsample_2d;
using test::root_c;

namespace {

/** P (Func 1 of reduction_dag(true)) at root, its update with r innermost and y outside: per
 * row, r inside x. */
FuncSched root_p_per_row() {
    FuncSched p;
    p.placement = Placement::Root;
    p.stages = {
        test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0),
        test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Outer, 0}}, 1, 0)};
    return p;
}
/** compute_at levels the search offers P under a root C tiled as `loops`, vector 8. */
std::set<int> at_levels(const PipelineDag &dag, std::vector<LoopTiling> loops, int unroll = 1) {
    SearchSpace space(dag);
    const FuncSched c = root_c(std::move(loops), unroll);
    std::vector<StatePtr> kids = children_after(space, {c});
    std::set<int> out;
    for (const StatePtr &k : kids)
        if (k->decisions[0].placement == Placement::At && k->decisions[1] == c)
            out.insert(k->decisions[0].at_level);
    return out;
}

} // namespace

TEST_CASE("no compute_at whose strided loads get constant indices in a vector tail", "[search]") {
    // Halide 14 miscompile (sextant-fuzz seed 186): P computed per row of a downsampling C
    // whose vectorized x has a ShiftInwards tail. The tail's stride-2 loads from P's
    // constant-size buffer have constant indices, and Halide 14 gives their dense load an
    // alignment they do not have (vmovaps on an unaligned address: SIGSEGV).
    const std::vector<LoopTiling> rows = {{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}; // y, x
    CHECK(at_levels(downsample_2d(54, 2), rows).empty());                // 54 % 8 != 0: a tail
    CHECK(at_levels(downsample_2d(56, 2), rows) == std::set<int>{0});    // no tail
    CHECK(at_levels(downsample_2d(64, 2), rows, 2) == std::set<int>{0}); // 64 % 16 == 0
    CHECK(at_levels(downsample_2d(56, 2), rows, 2).empty());          // unrolled by 2: 56 % 16 != 0
    CHECK(at_levels(downsample_2d(54, 1), rows) == std::set<int>{0}); // dense loads: fine
    // y split by 4 (y_o, y_i, x): at y_o the indices vary with y_i; at y_i they do not.
    CHECK(at_levels(downsample_2d(54, 2), {{LoopMode::Inner, 0}, {LoopMode::Split, 4}}) ==
          std::set<int>{0});
    // x split by 16 with y outer (y, x_o, x_i): the last x_o tile (54 % 16 != 0) is constant
    // at y; inside one x_o tile the 16 points fill two whole vectors.
    CHECK(at_levels(downsample_2d(54, 2), {{LoopMode::Split, 16}, {LoopMode::Outer, 0}}) ==
          std::set<int>{1});
}

TEST_CASE("no compute_at whose strided loads get constant indices in the body", "[search]") {
    // Halide 14 miscompile, no tail needed: when nothing serial inside the compute level moves
    // the index (only the vector lanes and unrolled copies), every stride-2 load from P has a
    // constant index, and Halide gives its dense load the native alignment whatever the
    // constant is (a hand-written reproducer: x split by 16, vectorized by 16, P at the outer
    // part: vmovaps 0x48(%rsp), %zmm6 in the parallel task, SIGSEGV).
    const std::vector<LoopTiling> one_vector = {{LoopMode::Split, 8}, {LoopMode::Outer, 0}};
    CHECK(at_levels(downsample_2d(56, 2), one_vector) == std::set<int>{0}); // not at x_o
    // Two vectors per x_o tile: a serial loop over them keeps the index a variable...
    CHECK(at_levels(downsample_2d(64, 2), {{LoopMode::Split, 16}, {LoopMode::Outer, 0}}) ==
          std::set<int>{0, 1});
    // ...unless the vector loop is unrolled over them.
    CHECK(at_levels(downsample_2d(64, 2), {{LoopMode::Split, 16}, {LoopMode::Outer, 0}}, 2) ==
          std::set<int>{0});
    // (y_o, x_o, y_i, x_i): at x_o, y_i moves the index (rows apart), a variable whose
    // modulus Halide reads right; at y_i only the vector is left.
    CHECK(at_levels(downsample_2d(56, 2), {{LoopMode::Split, 8}, {LoopMode::Split, 4}}) ==
          std::set<int>{0, 1});
    // Dense loads are fine...
    CHECK(at_levels(downsample_2d(56, 1), one_vector) == std::set<int>{0, 1});
    // ...unless C selects on x's parity: Halide deinterleaves the select, and the dense loads
    // become stride-2 ones (bench camera_pipe's demosaic, a dropout candidate computing
    // `linear` per 16x4 tile of `demosaiced` vectorized by 16 with its rows unrolled:
    // `linear[ramp(65, 2, 4)]` in its Stmt, vmovaps from 8 bytes past a 32-byte boundary).
    PipelineDag bayer = downsample_2d(56, 1);
    bayer.funcs[1].stages[0].loops[0].parity_mod = 2;
    CHECK(at_levels(bayer, one_vector) == std::set<int>{0});
    // Parity along y alone leaves the x loads dense.
    PipelineDag rows_only = downsample_2d(56, 1);
    rows_only.funcs[1].stages[0].loops[1].parity_mod = 2;
    CHECK(at_levels(rows_only, one_vector) == std::set<int>{0, 1});
}

namespace {

/** (placement, at_func, at_level) of Func `func` over all `kids`. */
std::set<std::tuple<int, int, int>> sites_of(const std::vector<StatePtr> &kids, int func) {
    std::set<std::tuple<int, int, int>> seen;
    for (const StatePtr &k : kids) {
        const FuncSched &f = k->decisions[size_t(func)];
        seen.insert({int(f.placement), f.at_func, f.at_level});
    }
    return seen;
}

/** True if the directives compute `func` at the loop `var` of `at_func`. */
bool computed_at(const PipelineDag &dag, const Decisions &d, int func, int at_func,
                 const std::string &var) {
    bool at = false;
    for (const Directive &x : make_directives(dag, d))
        if (x.kind == Directive::Kind::ComputeAt && x.func == func)
            at = x.at_func == at_func && x.vars.size() == 1 && x.vars[0].name == var;
    return at;
}

} // namespace

TEST_CASE("a producer of a Func computed per tile may also go inside that Func's loops",
          "[search]") {
    // P0 -> P1 -> C. C at root in 16-wide tiles, P1 per tile of C in 8-wide vectors: P0 can
    // be inlined, rooted, computed per tile of C beside P1, or nested per vector block of P1.
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space(dag);
    FuncSched c{Placement::Root, -1, -1, -1, {test::sched({{LoopMode::Split, 16}}, 8, 0)}};
    FuncSched p1{Placement::At, 2, 0, -1, {test::sched({{LoopMode::Split, 8}}, 8, 0)}};
    std::vector<StatePtr> kids = children_after(space, {c, p1});
    CHECK(sites_of(kids, 0) == std::set<std::tuple<int, int, int>>{{int(Placement::Inline), -1, -1},
                                                                   {int(Placement::Root), -1, -1},
                                                                   {int(Placement::At), 2, 0},
                                                                   {int(Placement::At), 1, 0}});
    for (const StatePtr &k : kids) {
        const FuncSched &p0 = k->decisions[0];
        if (p0.placement != Placement::At || p0.at_func != 1) continue;
        // 4 tiles of C x 3 blocks of P1 (P1 computes 24 points per tile: 16 + 2 x 4).
        const FuncNest &n = *k->nests[0];
        CHECK(n.realizations == 12);
        CHECK(n.region[0].extent() == 16); // 8 points of P1 + 2 x 4 halo
        CHECK(computed_at(dag, k->decisions, 0, 1, "x_o"));
        // And the text round-trips.
        CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
        break;
    }
}

TEST_CASE("a producer may be computed at any loop enclosing its uses, through nested Funcs",
          "[search]") {
    // P0 -> P1 -> P2 -> C. C at root in 16-wide tiles (4), P2 per tile in 8-wide blocks, P1
    // per block of P2: P0 may go in P1's loops, beside P1 in P2's block loop, or per tile of C.
    PipelineDag dag = test::stencil_chain(3);
    SearchSpace space(dag);
    FuncSched c{Placement::Root, -1, -1, -1, {test::sched({{LoopMode::Split, 16}}, 8, 0)}};
    FuncSched p2{Placement::At, 3, 0, -1, {test::sched({{LoopMode::Split, 8}}, 8, 0)}};
    FuncSched p1{Placement::At, 2, 0, -1, {test::sched({{LoopMode::Split, 8}}, 8, 0)}};
    std::vector<StatePtr> kids = children_after(space, {c, p2, p1});
    CHECK(sites_of(kids, 0) == std::set<std::tuple<int, int, int>>{{int(Placement::Inline), -1, -1},
                                                                   {int(Placement::Root), -1, -1},
                                                                   {int(Placement::At), 1, 0},
                                                                   {int(Placement::At), 2, 0},
                                                                   {int(Placement::At), 3, 0}});
    bool checked = false;
    for (const StatePtr &k : kids) {
        const FuncSched &p0 = k->decisions[0];
        if (p0.placement != Placement::At || p0.at_func != 3) continue;
        // Per tile of C: P2 computes 16 + 8 points, P1 (three blocks of P2) 24 + 8, P0 40.
        const FuncNest &n = *k->nests[0];
        CHECK(n.realizations == 4);
        CHECK(n.region[0].extent() == 40);
        CHECK(!n.constant_size); // its region passes through P2's and P1's loops
        CHECK(computed_at(dag, k->decisions, 0, 3, "x_o"));
        CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
        checked = true;
        break;
    }
    CHECK(checked);
}

namespace {

/** P(x, y) = 0; P(x, y) += S(x + r, y), r in [0, 8); C(x, y) = P(x, y), the output over
 * [0, 63] x [0, 15], where S is the input (`source_is_func` false) or Func 0,
 * Q(x, y) = in(x, y) * 2. P and C follow. AVX2: 8 f32 lanes, 16 registers. */
PipelineDag reduction_dag(bool source_is_func) {
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    dag.inputs.push_back(test::input({{0, 70}, {0, 15}}));
    const std::vector<JacobianEntry> identity = {
        {1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}};
    // Loads in P's update, over loops r (0), x (1), y (2).
    const std::vector<JacobianEntry> shifted = {{1, 1, true}, {1, 1, true}, {0, 1, true},
                                                {0, 1, true}, {0, 1, true}, {1, 1, true}};
    const ProducerKind source_kind = source_is_func ? ProducerKind::Func : ProducerKind::Input;
    if (source_is_func) {
        FuncNode q = test::func(0, "Q", {{0, 70}, {0, 15}});
        Stage qs;
        qs.func = 0;
        qs.name = "Q";
        qs.loops = {test::pure_loop("x", 0, 0, 70), test::pure_loop("y", 1, 0, 15)};
        qs.ops.at(OpKind::Mul, TypeClass::F32) = 1;
        qs.ops.at(OpKind::InputLoad, TypeClass::F32) = 1;
        qs.loads = {test::simple_load(ProducerKind::Input, 0, 1, 2, identity)};
        q.stages = {qs};
        dag.funcs.push_back(q);
        dag.edges.push_back(test::offset_edge(0, 0, ProducerKind::Input, 0, {0, 0}, {0, 0}, 1));
    }
    const int pid = int(dag.funcs.size()), cid = pid + 1;
    FuncNode p = test::func(pid, "P", {{0, 63}, {0, 15}});
    Stage p0;
    p0.func = pid;
    p0.name = "P";
    p0.loops = {test::pure_loop("x", 0, 0, 63), test::pure_loop("y", 1, 0, 15)};
    Stage p1 = p0;
    p1.index = 1;
    p1.name = "P.update(0)";
    LoopDim r;
    r.name = "r";
    r.is_rvar = true;
    r.range = {0, 7};
    p1.loops.insert(p1.loops.begin(), r);
    p1.ops.at(OpKind::Add, TypeClass::F32) = 1;
    p1.ops.at(source_is_func ? OpKind::FuncLoad : OpKind::InputLoad, TypeClass::F32) = 1;
    Load self = test::simple_load(ProducerKind::Func, pid, 1, 2, shifted);
    self.jacobian[0] = {0, 1, true}; // P(x, y): no r
    self.self = true;
    p1.loads = {test::simple_load(source_kind, 0, 1, 2, shifted), self};
    p.stages = {p0, p1};
    dag.funcs.push_back(p);
    FuncNode c = test::func(cid, "C", {{0, 63}, {0, 15}});
    c.is_output = true;
    Stage cs;
    cs.func = cid;
    cs.name = "C";
    cs.loops = {test::pure_loop("x", 0, 0, 63), test::pure_loop("y", 1, 0, 15)};
    cs.ops.at(OpKind::FuncLoad, TypeClass::F32) = 1;
    cs.loads = {test::simple_load(ProducerKind::Func, pid, 1, 2, identity)};
    c.stages.push_back(cs);
    dag.funcs.push_back(c);
    dag.outputs = {cid};
    // P.update reads S(x + r, y).
    Edge e;
    e.consumer_func = pid;
    e.consumer_stage = 1;
    e.kind = source_kind;
    e.producer = 0;
    e.calls = 1;
    using Op = BoundExpr::Op;
    e.min = {BoundExpr::binary(Op::Add, BoundExpr::loop_min(1), BoundExpr::loop_min(0)),
             BoundExpr::loop_min(2)};
    e.max = {BoundExpr::binary(Op::Add, BoundExpr::loop_max(1), BoundExpr::loop_max(0)),
             BoundExpr::loop_max(2)};
    dag.edges.push_back(e);
    dag.edges.push_back(test::offset_edge(cid, 0, ProducerKind::Func, pid, {0, 0}, {0, 0}, 1));
    dag.link();
    return dag;
}

} // namespace

TEST_CASE("a reduction is offered per register block of its consumer", "[search]") {
    // C (x vector 8, y; both whole) was tiled before P. P's accumulators fit in registers
    // when computed per block of C of one vector by a few rows: 8 x b points, b vectors of
    // accumulators, at most 12 (three quarters of AVX2's 16 registers).
    PipelineDag dag = reduction_dag(false);
    SearchSpace space(dag);
    const FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
    std::set<int64_t> rows;
    for (const StatePtr &k : children_after(space, {c})) {
        const FuncSched &kc = k->decisions[1];
        if (!(kc.stages[0].loops[0] == LoopTiling{LoopMode::Split, 8})) continue;
        // The block: x split to one vector, y split (or outside for one row); P per block.
        const FuncSched &p = k->decisions[0];
        REQUIRE(p.placement == Placement::At);
        const FuncNest &n = *k->nests[0];
        CHECK(n.region[0].extent() == 8);
        CHECK(n.constant_size);
        CHECK(k->nests[1]->stages[0].order[size_t(p.at_level) + 1].outer_part == false);
        rows.insert(n.region[1].extent());
        CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
    }
    CHECK(rows == std::set<int64_t>{2, 3, 4, 6, 8});
    // Off: no block.
    SearchSpaceOptions off;
    off.register_blocks = false;
    off.retile_consumers = false;
    StatePtr s = space.make_child(*space.initial_state(), c);
    std::vector<StatePtr> kids;
    space.children(*s, off, &kids);
    for (const StatePtr &k : kids)
        CHECK(k->decisions[1] == c);
}

TEST_CASE("a reduction computed per block is offered with its block loops unrolled", "[search]") {
    // As above: P per block of C (one vector of x by b rows). With the reduction r outside,
    // P's update runs r, y (b rows), x (the vector): unroll_outer 1 unrolls the whole y loop,
    // b accumulator vectors; never P's pure stage (random pipeline 762: LLVM 14 took minutes
    // over a tiled initialization). Only in a constant-size block.
    PipelineDag dag = reduction_dag(false);
    SearchSpace space(dag);
    const FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
    auto tiles = [&](const SearchSpaceOptions &opt) {
        std::set<int64_t> rows;
        for (const StatePtr &k : children_after(space, {c}, opt)) {
            const FuncSched &p = k->decisions[0];
            if (p.placement != Placement::At) continue;
            for (const ConcreteLoop &l : k->nests[0]->stages[0].order) // a short split's part
                CHECK((!l.unrolled ||
                       p.stages[0].loops[size_t(l.stage_loop)].mode == LoopMode::Split));
            if (p.stages[1].unroll_outer == 0) continue;
            const StageNest &sn = k->nests[0]->stages[1];
            const ConcreteLoop &y = sn.order[sn.order.size() - 2];
            if (p.stages[1].loops[size_t(y.stage_loop)].mode != LoopMode::Inner) continue;
            CHECK(k->nests[0]->constant_size);
            CHECK(y.unrolled);
            CHECK(dag.stage(0, 1).loops[size_t(sn.order[0].stage_loop)].is_rvar);
            CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
            rows.insert(y.extent);
        }
        return rows;
    };
    CHECK(tiles({}) == std::set<int64_t>{2, 3, 4, 6, 8});
    SearchSpaceOptions off;
    off.register_tiles = false;
    CHECK(tiles(off).empty());
}

TEST_CASE("a producer of a reduction is offered per iteration of it", "[search]") {
    // P's update was tiled with r innermost and y outside (per row), before Q was decided.
    // The re-tiling moves r outside and y inside: Q is computed once per r over the whole
    // 64 x 16 tile of P (8 realizations of 64 x 16 points, not 16 of 71 x 1).
    PipelineDag dag = reduction_dag(true);
    SearchSpace space(dag);
    const FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
    const FuncSched p = root_p_per_row();
    int offered = 0;
    for (const StatePtr &k : children_after(space, {c, p})) {
        const FuncSched &kp = k->decisions[1];
        // The other re-tilings (one more split, register blocks) keep r inside.
        if (!(kp.stages[1].loops[0] == LoopTiling{LoopMode::Outer, 0})) continue;
        const FuncSched &q = k->decisions[0];
        REQUIRE(q.placement == Placement::At);
        CHECK(q.at_func == 1);
        CHECK(q.at_stage == 1);
        CHECK(kp.stages[0] == p.stages[0]);
        CHECK(kp.stages[1].loops[1] == LoopTiling{LoopMode::Inner, 0});
        CHECK(kp.stages[1].loops[2] == LoopTiling{LoopMode::Inner, 0}); // y inside
        const FuncNest &n = *k->nests[0];
        CHECK(n.realizations == 8);
        CHECK(n.region[0].extent() == 64);
        CHECK(n.region[1].extent() == 16);
        CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
        offered++;
    }
    CHECK(offered > 0);
    // Off: r stays inside.
    SearchSpaceOptions off;
    off.reduction_outside = false;
    StatePtr s = space.make_child(*space.make_child(*space.initial_state(), c), p);
    std::vector<StatePtr> kids;
    space.children(*s, off, &kids);
    for (const StatePtr &k : kids)
        CHECK(!(k->decisions[1].stages[1].loops[0] == LoopTiling{LoopMode::Outer, 0}));
}

TEST_CASE("a window may slide inside an update stage's nest", "[search]") {
    // P.update reads Q(x + r, y) over loops y (outer), x, r: Q computed per x and stored per
    // y slides along x, each x needing one new column of Q.
    PipelineDag dag = reduction_dag(true);
    SearchSpace space(dag);
    const FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
    const FuncSched p = root_p_per_row();
    auto stores = [&](const SearchSpaceOptions &opt) {
        StatePtr s = space.make_child(*space.make_child(*space.initial_state(), c), p);
        std::vector<StatePtr> kids;
        space.children(*s, opt, &kids);
        std::set<std::pair<int, int>> out; // (compute level, store level)
        for (const StatePtr &k : kids) {
            const FuncSched &q = k->decisions[0];
            if (q.placement != Placement::At || q.store_level < 0 || !(k->decisions[1] == p))
                continue;
            CHECK(q.at_stage == 1);
            CHECK(k->nests[0]->sliding);
            CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
            CHECK(schedule_constructs(dag, k->decisions) ==
                  std::vector<std::string>{"sliding", "sliding_update", "in_update"});
            out.insert({q.at_level, q.store_level});
        }
        return out;
    };
    CHECK(stores({}) == std::set<std::pair<int, int>>{{1, 0}});
    SearchSpaceOptions off;
    off.slide_in_updates = false;
    CHECK(stores(off).empty());
}

TEST_CASE("no Func is placed at or inside a loop unrolled inside the vectors", "[search]") {
    // stencil_2d cut to 4 rows of C: C at root, order y, x (vector 8). P may go per row of C;
    // with y unrolled inside the vectors (Halide moves it innermost) it may not (a re-tiling
    // of C that drops the unrolled loop may still place it).
    PipelineDag dag = test::stencil_2d();
    dag.inputs[0].bounds[1] = {-1, 4};
    dag.funcs[0].bounds[1] = {-1, 4};
    dag.funcs[0].stages[0].loops[1].range = {-1, 4};
    dag.funcs[1].bounds[1] = {0, 3};
    dag.funcs[1].stages[0].loops[1].range = {0, 3};
    SearchSpace space(dag);
    FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
    auto levels = [&](const FuncSched &cs) {
        std::set<int> out;
        for (const StatePtr &k : children_after(space, {cs}))
            if (k->decisions[0].placement == Placement::At && k->decisions[1] == cs)
                out.insert(k->decisions[0].at_level);
        return out;
    };
    CHECK(levels(c) == std::set<int>{0});
    c.stages[0].unrolled_inside = 1;
    Decisions d(2);
    d.set(1, c);
    REQUIRE(unrolled_inside_problem(dag, d, 1, 0, 1).empty());
    CHECK(levels(c).empty());
}

TEST_CASE("a window does not slide along a loop that moves it less than its width", "[search]") {
    // P.update over loops y (outer), r, x (inner): Q(x + r, y) computed per r covers the whole
    // row (64 columns) and moves one column per r, 8 columns in all. Stored per row, Halide
    // would rewind r into one step per column (random pipeline 100782: 400 ms against 0.6
    // computed per row): not offered. Computed per r without storage outside it still is.
    PipelineDag dag = reduction_dag(true);
    SearchSpace space(dag);
    const FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
    FuncSched p = root_p_per_row();
    p.stages[1] =
        test::sched({{LoopMode::Outer, 0}, {LoopMode::Inner, 0}, {LoopMode::Outer, 0}}, 8, 0);
    StatePtr s = space.make_child(*space.make_child(*space.initial_state(), c), p);
    const StageNest &pn = s->nests[1]->stages[1];
    REQUIRE(pn.order.size() == 3);
    REQUIRE(pn.order[1].stage_loop == 0); // r between y and x
    std::vector<StatePtr> kids;
    space.children(*s, {}, &kids);
    bool per_r = false;
    for (const StatePtr &k : kids) {
        const FuncSched &q = k->decisions[0];
        if (q.placement != Placement::At || !(k->decisions[1] == p)) continue;
        CHECK(q.store_level < 0);
        per_r = per_r || (q.at_stage == 1 && q.at_level == 1);
    }
    CHECK(per_r);
    CHECK(!region_slides_along(dag, s->decisions, s->nests, 0, 1, 1, 1, 1));
    // Its footprint per r does slide (it overlaps the next r's): the travel is what fails.
    Decisions d = s->decisions;
    FuncSched q{Placement::At, 1, 1, -1, {}};
    q.at_stage = 1;
    d.set(0, q);
    const Box64 first = region_at(dag, d, s->nests, 0, 1, 1, 1);
    CHECK(first[0].extent() == 64);
}

TEST_CASE("storage goes outside a loop only if the Func's region slides along it", "[search]") {
    // stencil_2d: C(x, y) reads P(x, y-1..y+1). C at root in 8-row strips: y.outer, y.inner, x.
    auto stores = [](const PipelineDag &dag) {
        SearchSpace space(dag);
        const FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Split, 8}});
        std::set<std::pair<int, int>> out; // (compute level, store level)
        for (const StatePtr &k : children_after(space, {c}))
            if (k->decisions[0].placement == Placement::At && k->decisions[1] == c &&
                k->decisions[0].store_level >= 0)
                out.insert({k->decisions[0].at_level, k->decisions[0].store_level});
        return out;
    };
    // P per row of a strip, stored per strip: the window slides down y.inner.
    const PipelineDag dag = test::stencil_2d();
    CHECK(stores(dag) == std::set<std::pair<int, int>>{{1, 0}});
    // Were every point of C to read the same rows of P (P(x, 0..2)), nothing would slide along
    // y.inner, and Halide 14 computes garbage for such storage (bench
    // bilateral_guided_upsampling): not offered.
    PipelineDag flat = dag;
    flat.edges[1].min[1] = BoundExpr::constant(0);
    flat.edges[1].max[1] = BoundExpr::constant(2);
    CHECK(stores(flat).empty());
    // Nor if each row of C reads only its own row of P: the region jumps to disjoint rows,
    // there is no window to slide, and Halide 14 computes a wrong output for storage outside
    // such a loop (random pipeline 132).
    PipelineDag rows = dag;
    rows.edges[1].min[1] = BoundExpr::loop_min(1);
    rows.edges[1].max[1] = BoundExpr::loop_max(1);
    CHECK(stores(rows).empty());
}

TEST_CASE("in a large pipeline a loop holds at most large_max_funcs_per_site Funcs", "[search]") {
    // in -> P0 -> P1 -> P2 -> C; C's x split, P2 computed at C's strip loop x_o. P1 may go
    // beside P2 at that loop unless the loop is full. Large-pipeline rules apply to this
    // 4-Func pipeline with large_pipeline_funcs = 1.
    PipelineDag dag = test::stencil_chain(3);
    SearchSpace space(dag);
    FuncSched c;
    c.placement = Placement::Root;
    c.stages = {test::sched({{LoopMode::Split, 16}}, 8, 0)};
    StatePtr s = space.make_child(*space.initial_state(), c);
    FuncSched p2;
    p2.placement = Placement::At;
    p2.at_func = 3;
    p2.at_level = 0;
    p2.stages = {test::sched({{LoopMode::Inner, 0}}, 8, 0)};
    s = space.make_child(*s, p2);
    REQUIRE(space.order()[size_t(s->num_decided)] == 1); // P1 next
    auto beside_p2 = [&](int cap) {
        SearchSpaceOptions opt;
        opt.large_pipeline_funcs = 1;
        opt.large_max_funcs_per_site = cap;
        std::vector<StatePtr> kids;
        space.children(*s, opt, &kids);
        int n = 0;
        for (const StatePtr &k : kids) {
            const FuncSched &f = k->decisions[1];
            n += f.placement == Placement::At && f.at_func == 3 && f.at_level == 0;
        }
        return n;
    };
    CHECK(beside_p2(0) > 0); // no limit
    CHECK(beside_p2(2) > 0); // one Func there: room for another
    CHECK(beside_p2(1) == 0);
}
