#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "plugin/search/BeamSearch.h"
#include "plugin/search/Directives.h"
#include "plugin/search/ScheduleText.h"

#include <catch2/catch.hpp>

#include <set>

using namespace sextant;

namespace {

/** Trivial evaluator: cost = number of Funcs computed at root, + 0.5 per compute_at.
 * Deterministic and model-free, as search tests need. */
class PlacementCounter : public StateEvaluator {
public:
    void evaluate(const std::vector<State *> &states) override {
        calls++;
        for (State *s : states) {
            s->cost = 0;
            for (const FuncSched &f : s->decisions)
                s->cost += f.placement == Placement::Root ? 1.0 : f.placement == Placement::At ? 0.5 : 0;
            s->dirty.clear();
        }
    }
    int calls = 0;
};

std::set<std::pair<int, int>> placements_of(const std::vector<StatePtr> &children, int func) {
    std::set<std::pair<int, int>> out;
    for (const StatePtr &c : children) {
        const FuncSched &f = c->decisions[func];
        out.insert({int(f.placement), f.at_level});
    }
    return out;
}

} // namespace

TEST_CASE("outputs are decided first and only at root", "[search]") {
    PipelineDag dag = test::stencil_1d();
    SearchSpace space(dag);
    CHECK(space.order() == std::vector<int>{1, 0});
    std::vector<StatePtr> kids;
    space.children(*space.initial_state(), {}, &kids);
    REQUIRE(!kids.empty());
    for (const StatePtr &k : kids) {
        const FuncSched &c = k->decisions[1];
        CHECK(c.placement == Placement::Root);
        const LoopTiling &t = c.stages[0].loops[0];
        if (t.mode == LoopMode::Split) CHECK(t.tile < 64); // never beyond the region
        if (c.stages[0].vector_width > 1) CHECK(c.stages[0].vector_width % 8 == 0);
    }
}

TEST_CASE("a single-consumer producer may be inlined, rooted or computed per tile", "[search]") {
    PipelineDag dag = test::stencil_1d();
    SearchSpace space(dag);
    FuncSched c;
    c.placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Split, 16}};
    s.vector_width = 8;
    s.parallel = 1;
    c.stages = {s};
    StatePtr after_c = space.make_child(*space.initial_state(), c);
    std::vector<StatePtr> kids;
    space.children(*after_c, {}, &kids);
    // x_o (level 0) is a legal compute_at site; x_i is vectorized, so it is not.
    CHECK(placements_of(kids, 0) == std::set<std::pair<int, int>>{
                                        {int(Placement::Inline), -1},
                                        {int(Placement::Root), -1},
                                        {int(Placement::At), 0}});
    for (const StatePtr &k : kids) {
        const FuncSched &p = k->decisions[0];
        if (p.placement != Placement::At) continue;
        // Region per realization is 18 wide: no split may exceed it, no parallel loops inside.
        CHECK(p.stages[0].parallel == 0);
        if (p.stages[0].loops[0].mode == LoopMode::Split) CHECK(p.stages[0].loops[0].tile < 18);
    }
}

TEST_CASE("a producer used only by an update stage is computed inside that stage's loops",
          "[search]") {
    // T is read only by S's update: it may go inside the update's loops (Halide's
    // compute_at(S, var) resolves to the stage that uses T), never into S's pure stage.
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space(dag);
    std::vector<StatePtr> kids;
    space.children(*space.initial_state(), {}, &kids);
    REQUIRE(!kids.empty());
    int nested = 0;
    for (const StatePtr &kid : kids) {
        std::vector<StatePtr> grandkids;
        space.children(*kid, {}, &grandkids);
        for (const StatePtr &g : grandkids) {
            const FuncSched &t = g->decisions[0];
            if (t.placement != Placement::At) continue;
            nested++;
            CHECK(t.at_func == 1);
            CHECK(t.at_stage == 1);
            const StageNest &un = g->nests[1]->stages[1];
            REQUIRE(t.at_level < int(un.order.size()));
            CHECK(!un.order[size_t(t.at_level)].vectorized);
            // T's region is what one iteration of that update loop reads.
            CHECK(box_volume(g->nests[0]->region) <= box_volume(dag.funcs[0].bounds));
            std::vector<Directive> ds = make_directives(dag, g->decisions);
            bool found = false;
            for (const Directive &d : ds) {
                if (d.kind != Directive::Kind::ComputeAt || d.func != 0) continue;
                const ConcreteLoop &l = un.order[size_t(t.at_level)];
                found = d.vars[0].is_rvar == dag.funcs[1].stages[1].loops[l.stage_loop].is_rvar;
            }
            CHECK(found);
            std::string text = to_schedule_text(dag, g->decisions);
            CHECK(text.find(" update 1") != std::string::npos);
            CHECK(parse_schedule_text(dag, text) == g->decisions);
        }
    }
    CHECK(nested > 0);
}

TEST_CASE("update tilings never parallelize or vectorize an RVar", "[search]") {
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space(dag);
    const Stage &u = dag.stage(1, 1); // loops r, x
    bool saw_vector = false;
    for (const StageSched &s : space.tilings(u, u.full_loop_box(), true, false)) {
        StageNest n = make_stage_nest(u, s, u.full_loop_box());
        for (const ConcreteLoop &l : n.order)
            if (l.parallel) CHECK_FALSE(u.loops[l.stage_loop].is_rvar);
        if (s.vector_width > 1) {
            saw_vector = true;
            CHECK(u.loops[n.order.back().stage_loop].name == "x");
            // r moved out of the way: outside the pure loops, or just outside the vector loop.
            CHECK(s.loops[0].mode != LoopMode::Inner);
        }
    }
    CHECK(saw_vector);
}

TEST_CASE("beam search follows its evaluator and is deterministic", "[search]") {
    PipelineDag dag = test::stencil_1d();
    SearchSpace space(dag);
    PlacementCounter eval;
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 3;
    SearchStats stats;
    StatePtr best = beam_search(space, eval, opt, &stats);
    REQUIRE(best);
    CHECK(space.is_complete(*best));
    CHECK(best->decisions[0].placement == Placement::Inline); // the counter's optimum
    CHECK(best->cost == 1.0);
    CHECK(stats.best_cost_per_pass.size() == 3);
    CHECK(eval.calls == 3 * 2); // one batch per step per pass
    StatePtr again = beam_search(space, eval, opt, nullptr);
    CHECK(again->hash == best->hash);
}

TEST_CASE("dropout with a seed is reproducible; greedy is a single pass", "[search]") {
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space(dag);
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    ModelEvaluator eval(dag, model);
    BeamSearchOptions opt;
    opt.beam_size = 3;
    opt.random_dropout = 40;
    opt.seed = 11;
    StatePtr a = beam_search(space, eval, opt, nullptr);
    StatePtr b = beam_search(space, eval, opt, nullptr);
    CHECK(to_schedule_text(dag, a->decisions) == to_schedule_text(dag, b->decisions));
    opt.beam_size = 1;
    opt.random_dropout = 100;
    SearchStats stats;
    StatePtr g = beam_search(space, eval, opt, &stats);
    CHECK(stats.best_cost_per_pass.size() == 1);
    CHECK(g->cost > 0);
}

TEST_CASE("ScheduleText round-trips and directives name the loops they create", "[search]") {
    PipelineDag dag = test::stencil_1d();
    Decisions d(2);
    d[1].placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Split, 16}};
    s.vector_width = 8;
    s.parallel = 1;
    d[1].stages = {s};
    d[0].placement = Placement::At;
    d[0].at_func = 1;
    d[0].at_level = 0;
    StageSched p;
    p.loops = {{LoopMode::Inner, 0}};
    p.vector_width = 8;
    d[0].stages = {p};
    std::string text = to_schedule_text(dag, d);
    CHECK(text == "sextant-schedule 1\n"
                  "func C root\n"
                  "  stage 0 loops x:split16 vector 8 unroll 1 parallel 1\n"
                  "func P at C 0\n"
                  "  stage 0 loops x:inner vector 8 unroll 1 parallel 0\n");
    CHECK(parse_schedule_text(dag, text) == d);
    std::vector<Directive> ds = make_directives(dag, d);
    REQUIRE(ds.size() >= 4);
    CHECK(ds[0].kind == Directive::Kind::ComputeAt);
    CHECK(ds[0].vars[0].name == "x_o");
    CHECK_THROWS_WITH(parse_schedule_text(dag, "sextant-schedule 1\nfunc C root\n  stage 0 loops y:inner vector 1 unroll 1 parallel 0\n"),
                      Catch::Contains("expected loop 'x'"));
}

TEST_CASE("no sliding window over a split loop; store_at is emitted and round-trips", "[search]") {
    PipelineDag dag = test::stencil_2d();
    SearchSpace space(dag);
    FuncSched c;
    c.placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Inner, 0}, {LoopMode::Split, 8}};
    s.vector_width = 8;
    c.stages = {s};
    StatePtr after_c = space.make_child(*space.initial_state(), c);
    std::vector<StatePtr> kids;
    space.children(*after_c, {}, &kids);
    std::set<std::pair<int, int>> at_store;
    for (const StatePtr &k : kids) {
        const FuncSched &p = k->decisions[0];
        if (p.placement == Placement::At) at_store.insert({p.at_level, p.store_level});
    }
    // y_i is the inner part of a split: Halide 14 computes wrong results when it slides over
    // it (ShiftInwards moves the last tile backwards), so storage stays at the compute level.
    CHECK(at_store == std::set<std::pair<int, int>>{{0, -1}, {1, -1}});
    Decisions d = after_c->decisions;
    d[0] = {Placement::At, 1, 1, 0, {}};
    StageSched p;
    p.loops = {{LoopMode::Inner, 0}, {LoopMode::Inner, 0}};
    d[0].stages = {p};
    std::vector<Directive> ds = make_directives(dag, d);
    REQUIRE(ds.size() >= 2);
    CHECK(ds[0].kind == Directive::Kind::ComputeAt);
    CHECK(ds[0].vars[0].name == "y_i");
    CHECK(ds[1].kind == Directive::Kind::StoreAt);
    CHECK(ds[1].vars[0].name == "y_o");
    std::string text = to_schedule_text(dag, d);
    CHECK(text.find("func P at C 1 store 0") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
}

TEST_CASE("register blocking unrolls the split part outside the vectors", "[search]") {
    PipelineDag dag = test::stencil_2d();
    Decisions d(2);
    d[1].placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Split, 16}, {LoopMode::Split, 4}}; // y_o, x_o, y_i, x_i
    s.vector_width = 8;
    s.unroll = 2;
    s.unroll_outer = true;
    d[1].stages = {s};
    d[0].placement = Placement::Inline;
    std::string text = to_schedule_text(dag, d);
    CHECK(text.find("vector 8 unroll 2 parallel 0 unroll_outer") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
    bool unrolled_y_i = false;
    for (const Directive &x : make_directives(dag, d))
        if (x.kind == Directive::Kind::Unroll && x.factor == 0) unrolled_y_i = x.vars[0].name == "y_i";
    CHECK(unrolled_y_i);
    Nests n = build_all_nests(dag, d);
    CHECK(n[1]->stages[0].order[2].unrolled);
    // The tiling generator offers it for such a nest.
    SearchSpace space(dag);
    bool offered = false;
    for (const StageSched &t : space.tilings(dag.stage(1, 0), dag.stage(1, 0).full_loop_box(), true, false))
        offered |= t.unroll_outer;
    CHECK(offered);
}

namespace {

/** in -> P(x, y) = in(x, y) -> C(x, y) = P(s*x, s*y) + P(s*x + 1, s*y) + ... (a downsample
 * by s, or a plain 2-tap read for s = 1); C over [0, w-1] x [0, 15]. AVX2: 8 f32 lanes. */
PipelineDag downsample_2d(int64_t w, int64_t s) {
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    Box64 pb = {{0, s * w}, {0, s * 16}};
    dag.inputs.push_back(test::input(pb));
    FuncNode p = test::func(0, "P", pb);
    p.can_inline = true;
    Stage ps;
    ps.func = 0;
    ps.name = "P";
    ps.loops = {test::pure_loop("x", 0, 0, s * w), test::pure_loop("y", 1, 0, s * 16)};
    ps.ops.at(OpKind::InputLoad, TypeClass::F32) = 1;
    ps.loads = {test::simple_load(ProducerKind::Input, 0, 1, 2,
                                  {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
    p.stages.push_back(ps);
    dag.funcs.push_back(p);
    FuncNode c = test::func(1, "C", {{0, w - 1}, {0, 15}});
    c.is_output = true;
    Stage cs;
    cs.func = 1;
    cs.name = "C";
    cs.loops = {test::pure_loop("x", 0, 0, w - 1), test::pure_loop("y", 1, 0, 15)};
    cs.ops.at(OpKind::Add, TypeClass::F32) = 3;
    cs.ops.at(OpKind::FuncLoad, TypeClass::F32) = 4;
    cs.loads = {test::simple_load(ProducerKind::Func, 0, 4, 2,
                                  {{s, 1, true}, {0, 1, true}, {0, 1, true}, {s, 1, true}})};
    c.stages.push_back(cs);
    dag.funcs.push_back(c);
    dag.outputs = {1};
    dag.edges.push_back(test::offset_edge(0, 0, ProducerKind::Input, 0, {0, 0}, {0, 0}, 1));
    Edge e;
    e.consumer_func = 1;
    e.consumer_stage = 0;
    e.kind = ProducerKind::Func;
    e.producer = 0;
    e.calls = 4;
    for (int d = 0; d < 2; d++) {
        using Op = BoundExpr::Op;
        e.min.push_back(BoundExpr::binary(Op::Mul, BoundExpr::loop_min(d), BoundExpr::constant(s)));
        e.max.push_back(BoundExpr::binary(
            Op::Add, BoundExpr::binary(Op::Mul, BoundExpr::loop_max(d), BoundExpr::constant(s)),
            BoundExpr::constant(1)));
    }
    dag.edges.push_back(e);
    dag.link();
    return dag;
}

/** C (Func 1) at root, tiled as `loops` with vector 8, and every child of that state. */
FuncSched root_c(std::vector<LoopTiling> loops, int unroll = 1) {
    FuncSched c;
    c.placement = Placement::Root;
    StageSched s;
    s.loops = std::move(loops);
    s.vector_width = 8;
    s.unroll = unroll;
    c.stages = {s};
    return c;
}
std::vector<StatePtr> children_under(const SearchSpace &space, const FuncSched &c) {
    StatePtr after_c = space.make_child(*space.initial_state(), c);
    std::vector<StatePtr> kids;
    space.children(*after_c, {}, &kids);
    return kids;
}

/** compute_at levels the search offers P under a root C tiled as `loops`, vector 8. */
std::set<int> at_levels(const PipelineDag &dag, std::vector<LoopTiling> loops, int unroll = 1) {
    SearchSpace space(dag);
    const FuncSched c = root_c(std::move(loops), unroll);
    std::vector<StatePtr> kids = children_under(space, c);
    std::set<int> out;
    for (const StatePtr &k : kids)
        if (k->decisions[0].placement == Placement::At && k->decisions[1] == c)
            out.insert(k->decisions[0].at_level);
    return out;
}

/** The children that re-tile C for P (SearchSpaceOptions::retile_tiles_per_loop), as
 * "loop:mode/tile@level" of C's changed loop and P's level. */
std::set<std::string> retiled(const PipelineDag &dag, std::vector<LoopTiling> loops) {
    SearchSpace space(dag);
    const FuncSched c = root_c(std::move(loops));
    const StageSched &s = c.stages[0];
    std::vector<StatePtr> kids = children_under(space, c);
    std::set<std::string> out;
    for (const StatePtr &k : kids) {
        const FuncSched &kc = k->decisions[1];
        if (kc == c) continue;
        REQUIRE(k->decisions[0].placement == Placement::At);
        REQUIRE(k->decisions[0].at_func == 1);
        for (size_t i = 0; i < s.loops.size(); i++) {
            const LoopTiling &t = kc.stages[0].loops[i];
            if (t == s.loops[i]) continue;
            out.insert(dag.funcs[1].stages[0].loops[i].name + ":" +
                       (t.mode == LoopMode::Outer ? "outer" : "split" + std::to_string(t.tile)) +
                       "@" + std::to_string(k->decisions[0].at_level));
        }
        // The re-tiled consumer's nest is rebuilt, and P's region is what one iteration of
        // the new loop reads.
        CHECK(k->nests[1]->stages[0].order[size_t(k->decisions[0].at_level)].outer_part);
    }
    return out;
}

} // namespace

TEST_CASE("no compute_at whose strided loads get constant indices in a vector tail", "[search]") {
    // Halide 14 miscompile (sextant-fuzz seed 186): P computed per row of a downsampling C
    // whose vectorized x has a ShiftInwards tail. The tail's stride-2 loads from P's
    // constant-size buffer have constant indices, and Halide 14 gives their dense load an
    // alignment they do not have (vmovaps on an unaligned address: SIGSEGV).
    const std::vector<LoopTiling> rows = {{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}; // y, x
    CHECK(at_levels(downsample_2d(54, 2), rows).empty());        // 54 % 8 != 0: a tail
    CHECK(at_levels(downsample_2d(56, 2), rows) == std::set<int>{0}); // no tail
    CHECK(at_levels(downsample_2d(64, 2), rows, 2) == std::set<int>{0}); // 64 % 16 == 0
    CHECK(at_levels(downsample_2d(56, 2), rows, 2).empty()); // unrolled by 2: 56 % 16 != 0
    CHECK(at_levels(downsample_2d(54, 1), rows) == std::set<int>{0}); // dense loads: fine
    // y split by 4 (y_o, y_i, x): at y_o the indices vary with y_i; at y_i they do not.
    CHECK(at_levels(downsample_2d(54, 2), {{LoopMode::Inner, 0}, {LoopMode::Split, 4}}) ==
          std::set<int>{0});
    // x split by 16 with y outer (y, x_o, x_i): the last x_o tile (54 % 16 != 0) is constant
    // at y; inside one x_o tile the 16 points fill two whole vectors.
    CHECK(at_levels(downsample_2d(54, 2), {{LoopMode::Split, 16}, {LoopMode::Outer, 0}}) ==
          std::set<int>{1});
}

TEST_CASE("a producer is offered inside its consumer re-tiled for it", "[search]") {
    // C (x vector 8, then y; both whole) was tiled before P was placed. P may go at the outer
    // part of a new split of either loop, or per row with y moved outside, unless that
    // hits the strided vector-tail hazard: per row of a 54-wide stride-2 downsample it does.
    const std::vector<LoopTiling> rows = {{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}; // x, y
    CHECK(retiled(downsample_2d(54, 2), rows) ==
          std::set<std::string>{"x:split16@0", "y:split4@0"});
    CHECK(retiled(downsample_2d(56, 2), rows) ==
          std::set<std::string>{"x:split16@0", "y:outer@0", "y:split4@0"});
    // Nothing to re-tile when every loop is already split or outside.
    CHECK(retiled(downsample_2d(56, 2), {{LoopMode::Split, 16}, {LoopMode::Outer, 0}}).empty());
}

namespace {

/** in -> P0 -> P1 -> ... -> P{n-1} -> C, each a 9-tap 1-D stencil of the one before (8 adds,
 * 9 loads: 17 IR nodes); C over [0, 63]. */
PipelineDag stencil_chain(int n) {
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    const int64_t lo = -4 * (n + 1), hi = 63 + 4 * (n + 1);
    dag.inputs.push_back(test::input({{lo, hi}}));
    for (int k = 0; k <= n; k++) {
        bool out = k == n;
        FuncNode f = test::func(k, out ? "C" : "P" + std::to_string(k), {{out ? 0 : lo, out ? 63 : hi}});
        f.can_inline = !out;
        f.is_output = out;
        Stage s;
        s.func = k;
        s.name = f.name;
        s.loops = {test::pure_loop("x", 0, f.bounds[0].min, f.bounds[0].max)};
        s.ops.at(OpKind::Add, TypeClass::F32) = 8;
        ProducerKind kind = k == 0 ? ProducerKind::Input : ProducerKind::Func;
        s.ops.at(k == 0 ? OpKind::InputLoad : OpKind::FuncLoad, TypeClass::F32) = 9;
        s.loads = {test::simple_load(kind, k == 0 ? 0 : k - 1, 9, 1, {{1, 1, true}})};
        f.stages.push_back(s);
        dag.funcs.push_back(f);
        dag.edges.push_back(test::offset_edge(k, 0, kind, k == 0 ? 0 : k - 1, {-4}, {4}, 9));
    }
    dag.outputs = {n};
    dag.link();
    return dag;
}

bool offers_inline(const SearchSpace &space, const State &s) {
    std::vector<StatePtr> kids;
    space.children(s, {}, &kids);
    int func = space.order()[size_t(s.num_decided)];
    bool root = false, inl = false;
    for (const StatePtr &k : kids) {
        root |= k->decisions[size_t(func)].placement == Placement::Root;
        inl |= k->decisions[size_t(func)].placement == Placement::Inline;
    }
    CHECK(root); // rooting is always possible
    return inl;
}

} // namespace

TEST_CASE("inlining stops before a consumer's expanded body passes the node cap", "[search]") {
    // Inlining a chain of stencils multiplies the consumer's expression at each level
    // (17 -> 170 -> 1547 -> 13940 nodes here); past SearchSpace::kMaxInlinedBodyNodes (4096)
    // Halide's lowering and LLVM take minutes, so the search stops offering it.
    PipelineDag dag = stencil_chain(4);
    SearchSpace space(dag);
    auto run = [&](int unroll) {
        FuncSched c;
        c.placement = Placement::Root;
        StageSched sc;
        sc.loops = {{LoopMode::Inner, 0}};
        sc.vector_width = 8;
        sc.unroll = unroll;
        c.stages = {sc};
        StatePtr s = space.make_child(*space.initial_state(), c);
        int inlined = 0;
        while (offers_inline(space, *s) && inlined < 4) {
            FuncSched in;
            in.placement = Placement::Inline;
            s = space.make_child(*s, in);
            inlined++;
        }
        return inlined;
    };
    CHECK(run(1) == 2); // P3 and P2 inlined (1547 nodes); P1 would make 13940
    CHECK(run(2) == 2); // 2 x 1547 = 3094 still fits
    CHECK(run(4) == 1); // 4 copies of the unrolled body: 4 x 1547 > 4096
}

TEST_CASE("unrolling is not offered once it would add more code than the budget", "[search]") {
    // C's body is 17 IR nodes; unrolling its vector loop by 2 adds one copy.
    PipelineDag dag = stencil_chain(1);
    SearchSpace space(dag);
    auto kids_with = [&](double budget) {
        SearchSpaceOptions o;
        o.max_unrolled_nodes = budget;
        std::vector<StatePtr> kids;
        space.children(*space.initial_state(), o, &kids);
        REQUIRE(!kids.empty());
        return kids;
    };
    bool one_copy = false;
    int unrolled = 0;
    for (const StatePtr &k : kids_with(0)) {
        const StageSched &sc = k->decisions[1].stages[0];
        if (sc.unroll == 2 && !sc.unroll_outer) one_copy |= k->unrolled_nodes == 17;
        unrolled += k->unrolled_nodes > 0;
        CHECK((k->unrolled_nodes > 0) == (sc.unroll > 1 || sc.unroll_outer));
    }
    CHECK(one_copy);
    CHECK(unrolled > 0);
    for (const StatePtr &k : kids_with(16)) CHECK(k->unrolled_nodes == 0);
    for (const StatePtr &k : kids_with(17)) CHECK(k->unrolled_nodes <= 17);
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
    PipelineDag dag = stencil_chain(2);
    SearchSpace space(dag);
    FuncSched c{Placement::Root, -1, -1, -1, {test::sched({{LoopMode::Split, 16}}, 8, 0)}};
    FuncSched p1{Placement::At, 2, 0, -1, {test::sched({{LoopMode::Split, 8}}, 8, 0)}};
    StatePtr s = space.make_child(*space.make_child(*space.initial_state(), c), p1);
    std::vector<StatePtr> kids;
    space.children(*s, {}, &kids);
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
    PipelineDag dag = stencil_chain(3);
    SearchSpace space(dag);
    FuncSched c{Placement::Root, -1, -1, -1, {test::sched({{LoopMode::Split, 16}}, 8, 0)}};
    FuncSched p2{Placement::At, 3, 0, -1, {test::sched({{LoopMode::Split, 8}}, 8, 0)}};
    FuncSched p1{Placement::At, 2, 0, -1, {test::sched({{LoopMode::Split, 8}}, 8, 0)}};
    StatePtr s = space.initial_state();
    for (const FuncSched &fs : {c, p2, p1}) s = space.make_child(*s, fs);
    std::vector<StatePtr> kids;
    space.children(*s, {}, &kids);
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

/** P1 at root looks cheapest when it is decided, but makes its producer P0 cost 10 more:
 * the trap a beam full of one structure falls into. */
class RootTrap : public StateEvaluator {
public:
    void evaluate(const std::vector<State *> &states) override {
        for (State *s : states) {
            const FuncSched &p1 = s->decisions[1], &p0 = s->decisions[0];
            s->cost = p1.placement == Placement::Root ? 1.0 : p1.placement == Placement::At ? 2.0 : 3.0;
            if (p0.placement != Placement::Undecided && p1.placement == Placement::Root) s->cost += 10;
            s->dirty.clear();
        }
    }
};

} // namespace

TEST_CASE("the beam keeps several placement structures", "[search]") {
    PipelineDag dag = stencil_chain(2); // P0 -> P1 -> C; decided C, P1, P0
    SearchSpace space(dag);
    RootTrap eval;
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    opt.structure_share = 0; // no cap: four tilings of P1 at root fill the beam
    StatePtr trapped = beam_search(space, eval, opt, nullptr);
    REQUIRE(trapped);
    CHECK(trapped->decisions[1].placement == Placement::Root);
    CHECK(trapped->cost == 11.0);
    opt.structure_share = 0.25; // one state per structure while others are left
    StatePtr best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
}

namespace {

/** RootTrap, and every state gets the same hash: only a key comparison tells them apart. */
class CollidingRootTrap : public RootTrap {
public:
    void evaluate(const std::vector<State *> &states) override {
        RootTrap::evaluate(states);
        for (State *s : states) s->hash = 42;
    }
};

} // namespace

TEST_CASE("beam de-duplication compares decisions as well as hashes", "[search]") {
    PipelineDag dag = stencil_chain(2);
    SearchSpace space(dag);
    CollidingRootTrap eval;
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    // Were states with equal hashes duplicates, one state would survive each step: P1 at
    // root (cost 1), then 11 in all.
    StatePtr best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->cost == 2.0);
}
