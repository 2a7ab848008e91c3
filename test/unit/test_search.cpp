#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/BeamSearch.h"
#include "search/Candidates.h"
#include "search/Directives.h"
#include "search/JobQueue.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

#include <set>

using namespace sextant;

namespace {

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
    CHECK(placements_of(kids, 0) == std::set<std::pair<int, int>>{{int(Placement::Inline), -1},
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
    test::PlacementPrices eval(1.0, 0.5, 0.0);
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

namespace {

/** P (Func 0) at root is cheap only under a tiling of C (Func 1) that the coarse pass does not
 * offer (x split by one 8-lane vector): a structure the coarse pass misprices. */
double fine_only_root(const State &s) {
    const FuncSched &c = s.decisions[1], &p = s.decisions[0];
    const bool fine_tiling =
        !c.stages.empty() && c.stages[0].loops[0] == LoopTiling{LoopMode::Split, 8};
    double cost = fine_tiling ? 0.0 : 0.01;
    if (p.placement == Placement::Inline) cost += 1.0;
    if (p.placement == Placement::Root) cost += fine_tiling ? 0.1 : 2.0;
    if (p.placement == Placement::At) cost += 3.0;
    return cost;
}

} // namespace

TEST_CASE("a free fine pass finds a structure the coarse pass mispriced", "[search]") {
    PipelineDag dag = test::stencil_1d();
    SearchSpace space(dag);
    test::CostOf eval(fine_only_root);
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 2;
    opt.keep_structures = 1;
    // Refining only the coarse pass's best structure (P inlined) never tries P at root.
    opt.free_passes = 0;
    StatePtr refined = beam_search(space, eval, opt, nullptr);
    REQUIRE(refined);
    CHECK(refined->decisions[0].placement == Placement::Inline);
    // The free pass searches every structure with the fine tilings.
    opt.free_passes = 1;
    StatePtr free = beam_search(space, eval, opt, nullptr);
    REQUIRE(free);
    CHECK(free->decisions[0].placement == Placement::Root);
    CHECK(free->cost == Approx(0.1));
}

TEST_CASE("a traced schedule is followed and reported at every step", "[search]") {
    // SEXTANT_TRACE_SCHEDULE: the search reports where a given schedule's prefix ranks.
    PipelineDag dag = test::stencil_1d();
    SearchSpace space(dag);
    test::PlacementPrices eval(1.0, 0.5, 0.0);
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    StatePtr best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    std::vector<std::string> lines;
    auto log = [&](const std::string &m) {
        if (m.rfind("trace:", 0) == 0) lines.push_back(m);
    };
    // The search's own pick: in the beam at every step, nothing cheaper at the end.
    opt.trace = &best->decisions;
    StatePtr again = beam_search(space, eval, opt, nullptr, log);
    CHECK(again->hash == best->hash); // tracing changes nothing
    REQUIRE(lines.size() == space.order().size());
    for (const std::string &l : lines) {
        CHECK_THAT(l, Catch::Contains("; in the beam"));
        CHECK_THAT(l, !Catch::Contains("not offered"));
    }
    CHECK_THAT(lines.back(), Catch::Contains("0 of"));
    // P at root (what an evaluator that prefers roots picks): offered, dearer here, and out
    // of the beam once the cheaper inlining wins.
    test::PlacementPrices prefers_roots(0.0, 0.5, 1.0);
    StatePtr roots_pick = beam_search(space, prefers_roots, opt, nullptr);
    REQUIRE(roots_pick->decisions[0].placement == Placement::Root);
    const Decisions roots = roots_pick->decisions;
    lines.clear();
    opt.trace = &roots;
    opt.beam_size = 1;
    beam_search(space, eval, opt, nullptr, log);
    REQUIRE(lines.size() == space.order().size());
    for (const std::string &l : lines)
        CHECK_THAT(l, !Catch::Contains("not offered"));
    CHECK_THAT(lines.back(), Catch::Contains("1 of 1 beam states cheaper"));
    CHECK_THAT(lines.back(), Catch::Contains("not in the beam (nor are its placements)"));
}

TEST_CASE("dropout with a seed is reproducible and greedy is a single pass", "[search]") {
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
    d.mut(1).placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Split, 16}};
    s.vector_width = 8;
    s.parallel = 1;
    d.mut(1).stages = {s};
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_level = 0;
    StageSched p;
    p.loops = {{LoopMode::Inner, 0}};
    p.vector_width = 8;
    d.mut(0).stages = {p};
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
    CHECK_THROWS_WITH(parse_schedule_text(dag, "sextant-schedule 1\nfunc C root\n  stage 0 loops "
                                               "y:inner vector 1 unroll 1 parallel 0\n"),
                      Catch::Contains("expected loop 'x'"));
}

TEST_CASE("sliding windows over a split's inner part only, store_at emitted and round-tripped",
          "[search]") {
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
    // Computed per row y_i of a tile, stored per tile y_o: the window slides down the tile's
    // rows (SearchSpaceOptions::slide_in_split_tiles). Never over y_o itself, the outer part
    // of the split, whose last (ShiftInwards) tile moves backwards.
    CHECK(at_store == std::set<std::pair<int, int>>{{0, -1}, {1, -1}, {1, 0}});
    SearchSpaceOptions no_slide;
    no_slide.slide_in_split_tiles = false;
    kids.clear();
    space.children(*after_c, no_slide, &kids);
    at_store.clear();
    for (const StatePtr &k : kids) {
        const FuncSched &p = k->decisions[0];
        if (p.placement == Placement::At) at_store.insert({p.at_level, p.store_level});
    }
    CHECK(at_store == std::set<std::pair<int, int>>{{0, -1}, {1, -1}});
    Decisions d = after_c->decisions;
    d.mut(0) = {Placement::At, 1, 1, 0, {}};
    StageSched p;
    p.loops = {{LoopMode::Inner, 0}, {LoopMode::Inner, 0}};
    d.mut(0).stages = {p};
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

namespace {

bool offers_inline(const SearchSpace &space, const State &s, const SearchSpaceOptions &opt = {}) {
    std::vector<StatePtr> kids;
    space.children(s, opt, &kids);
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
    // (17 -> 170 -> 1547 -> 13940 nodes here); past SearchSpaceOptions::max_inlined_body_nodes
    // (4096) Halide's lowering and LLVM take minutes, so the search stops offering it.
    PipelineDag dag = test::stencil_chain(4);
    SearchSpace space(dag);
    auto run = [&](int unroll, const SearchSpaceOptions &opt = {}) {
        FuncSched c;
        c.placement = Placement::Root;
        StageSched sc;
        sc.loops = {{LoopMode::Inner, 0}};
        sc.vector_width = 8;
        sc.unroll = unroll;
        c.stages = {sc};
        StatePtr s = space.make_child(*space.initial_state(), c);
        int inlined = 0;
        while (offers_inline(space, *s, opt) && inlined < 4) {
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
    // The cap is an option.
    SearchSpaceOptions wide;
    wide.max_inlined_body_nodes = 14000;
    CHECK(run(1, wide) == 3);
}

TEST_CASE("unrolling is not offered once it would add more code than the budget", "[search]") {
    // C's body is 17 IR nodes; unrolling its vector loop by 2 adds one copy.
    PipelineDag dag = test::stencil_chain(1);
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
    for (const StatePtr &k : kids_with(16))
        CHECK(k->unrolled_nodes == 0);
    for (const StatePtr &k : kids_with(17))
        CHECK(k->unrolled_nodes <= 17);
}

namespace {

/** P1 at root looks cheapest when it is decided, but makes its producer P0 cost 10 more:
 * the trap a beam full of one structure falls into. */
double root_trap(const State &s) {
    const FuncSched &p1 = s.decisions[1], &p0 = s.decisions[0];
    double cost = p1.placement == Placement::Root ? 1.0 : p1.placement == Placement::At ? 2.0 : 3.0;
    if (p0.placement != Placement::Undecided && p1.placement == Placement::Root) cost += 10;
    return cost;
}

} // namespace

TEST_CASE("the beam keeps several placement structures and costs", "[search]") {
    PipelineDag dag = test::stencil_chain(2); // P0 -> P1 -> C; decided C, P1, P0
    SearchSpace space(dag);
    test::CostOf eval(root_trap);
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    opt.structure_share = 0; // no cap: four tilings of P1 at root fill the beam
    opt.equal_cost_share = 0;
    StatePtr trapped = beam_search(space, eval, opt, nullptr);
    REQUIRE(trapped);
    CHECK(trapped->decisions[1].placement == Placement::Root);
    CHECK(trapped->cost == 11.0);
    opt.structure_share = 0.25; // one state per structure while others are left
    StatePtr best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
    // The four tilings of P1 at root all cost 1: one state per cost while others are left
    // keeps P1 inside C as well, without the structure cap.
    opt.structure_share = 0;
    opt.equal_cost_share = 0.25;
    best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
    // The share is of at most structure_cap_beam states, so that a wider beam holds more
    // structures rather than more tilings of each: all of a beam of 4 lets P1 at root fill it,
    // all of 1 state does not.
    opt.equal_cost_share = 0;
    opt.structure_share = 1.0;
    opt.structure_cap_beam = 0; // of the whole beam
    best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::Root);
    opt.structure_cap_beam = 1;
    best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
}

namespace {

/** root_trap, and every state gets the same hash: only a key comparison tells them apart. */
class CollidingRootTrap : public test::CostOf {
public:
    CollidingRootTrap() : CostOf(root_trap) {}
    void evaluate(const std::vector<State *> &states) override {
        CostOf::evaluate(states);
        for (State *x : states)
            x->hash = 42;
    }
};

} // namespace

TEST_CASE("beam de-duplication compares decisions as well as hashes", "[search]") {
    PipelineDag dag = test::stencil_chain(2);
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

TEST_CASE("a job queue runs its jobs in order and hands back what one threw", "[search]") {
    for (bool threaded : {false, true}) {
        JobQueue q(threaded);
        CHECK(q.threaded() == threaded);
        std::vector<int> ran;
        for (int i = 0; i < 100; i++)
            q.push([&ran, i] { ran.push_back(i); });
        q.drain();
        REQUIRE(ran.size() == 100);
        for (int i = 0; i < 100; i++)
            CHECK(ran[size_t(i)] == i);
        // A job that throws: the ones after it never run, and the error comes back once.
        int after = 0;
        bool thrown = false;
        try {
            q.push([] { throw std::runtime_error("job failed"); });
            q.push([&after] { after++; });
            q.drain();
        } catch (const std::runtime_error &e) {
            thrown = std::string(e.what()) == "job failed";
        }
        CHECK(thrown);
        CHECK(after == 0);
        q.push([&after] { after++; }); // the queue goes on
        q.drain();
        CHECK(after == 1);
    }
}

namespace {

/** Throws from its `fail_at`-th call: what an evaluator on the scoring thread may do. */
class FailingEvaluator : public StateEvaluator {
public:
    FailingEvaluator(StateEvaluator &inner, int fail_at) : inner_(inner), fail_at_(fail_at) {}
    void evaluate(const std::vector<State *> &states) override {
        if (++calls_ == fail_at_) throw std::bad_alloc();
        inner_.evaluate(states);
    }

private:
    StateEvaluator &inner_;
    int fail_at_, calls_ = 0;
};

} // namespace

TEST_CASE("scoring beside the search keeps the states scoring in place keeps", "[search]") {
    PipelineDag dag = test::stencil_chain(4);
    SearchSpace space(dag);
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    ModelEvaluator eval(dag, model);
    for (int dropout : {100, 50}) {
        BeamSearchOptions opt;
        opt.beam_size = 8;
        opt.num_passes = 2;
        opt.random_dropout = dropout;
        opt.seed = 3;
        opt.max_batch = 300; // several selections per step, each scored in groups
        opt.score_beside = false;
        SearchStats alone_stats;
        StatePtr alone = beam_search(space, eval, opt, &alone_stats);
        opt.score_beside = true;
        SearchStats beside_stats;
        StatePtr beside = beam_search(space, eval, opt, &beside_stats);
        REQUIRE(alone);
        REQUIRE(beside);
        CHECK(alone_stats.states_evaluated > 2 * 300);
        CHECK(beside_stats.states_evaluated == alone_stats.states_evaluated);
        CHECK(to_schedule_text(dag, beside->decisions) == to_schedule_text(dag, alone->decisions));
        CHECK(beside->cost == alone->cost);
        REQUIRE(beside_stats.final_beam.size() == alone_stats.final_beam.size());
        for (size_t i = 0; i < alone_stats.final_beam.size(); i++)
            CHECK(beside_stats.final_beam[i]->hash == alone_stats.final_beam[i]->hash);
    }
    // An evaluator's exception reaches the caller, wherever it was thrown.
    for (bool beside : {false, true}) {
        FailingEvaluator failing(eval, 5);
        BeamSearchOptions opt;
        opt.beam_size = 8;
        opt.max_batch = 300;
        opt.score_beside = beside;
        CHECK_THROWS_AS(beam_search(space, failing, opt, nullptr), std::bad_alloc);
    }
}

TEST_CASE("siblings are scored by their own rows as if scored whole", "[search]") {
    // Children that differ only in the tiling of the Func just placed take every other score
    // from the first of them (State::siblings); the check mode scores each whole.
    PipelineDag dag = test::stencil_chain(4);
    SearchSpace space(dag);
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    ModelEvaluator shortcut(dag, model), whole(dag, model, true);
    BeamSearchOptions opt;
    opt.beam_size = 8;
    opt.max_batch = 300;
    SearchStats a_stats, b_stats;
    StatePtr a = beam_search(space, shortcut, opt, &a_stats);
    StatePtr b = beam_search(space, whole, opt, &b_stats);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(to_schedule_text(dag, a->decisions) == to_schedule_text(dag, b->decisions));
    CHECK(a->cost == b->cost);
    REQUIRE(a_stats.final_beam.size() == b_stats.final_beam.size());
    for (size_t i = 0; i < a_stats.final_beam.size(); i++) {
        CHECK(a_stats.final_beam[i]->hash == b_stats.final_beam[i]->hash);
        CHECK(a_stats.final_beam[i]->cost == b_stats.final_beam[i]->cost);
    }
    CHECK(shortcut.timing().states == whole.timing().states);
    CHECK(shortcut.timing().rows < whole.timing().rows * 3 / 4);
    CHECK(whole.sibling_mismatches() == 0);
    CHECK(whole.sibling_checks() > 1000);
}

TEST_CASE("a filtered pass makes only the children of the structures it continues", "[search]") {
    PipelineDag dag = test::stencil_chain(3);
    SearchSpace space(dag);
    StatePtr s = space.initial_state();
    std::vector<StatePtr> first;
    space.children(*s, SearchSpaceOptions{}, &first);
    REQUIRE(!first.empty());
    s = first[0];
    std::vector<StatePtr> all;
    space.children(*s, SearchSpaceOptions{}, &all);
    std::set<uint64_t> structures;
    for (const StatePtr &c : all)
        structures.insert(c->placement_hash);
    REQUIRE(structures.size() >= 3);
    const std::set<uint64_t> allowed{*structures.begin(), *structures.rbegin()};
    std::vector<uint64_t> want, got;
    for (const StatePtr &c : all)
        if (allowed.count(c->placement_hash)) want.push_back(c->hash);
    CHECK(space.children(
        *s, SearchSpaceOptions{}, [&](StatePtr c) { got.push_back(c->hash); }, allowed));
    CHECK(got == want);
    CHECK(got.size() < all.size());
    // No allowed structure: nothing is made, and the caller is told to filter all children.
    got.clear();
    CHECK_FALSE(space.children(
        *s, SearchSpaceOptions{}, [&](StatePtr c) { got.push_back(c->hash); },
        std::set<uint64_t>{12345}));
    CHECK(got.empty());
}
