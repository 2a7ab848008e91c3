#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/BeamSearch.h"
#include "search/Candidates.h"
#include "search/Directives.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <sstream>

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

/** A search log that keeps the trace's lines (SEXTANT_TRACE_SCHEDULE) in `lines`. */
std::function<void(const std::string &)> trace_lines(std::vector<std::string> &lines) {
    return [&lines](const std::string &m) {
        if (m.rfind("trace:", 0) == 0) lines.push_back(m);
    };
}

/** transpose_reduce, scored by the analytical model. */
struct AnalyticalTransposeReduce {
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space{dag};
    AnalyticalModel model{dag.machine.parallelism, double(dag.machine.last_level_cache_bytes)};
    ModelEvaluator eval{dag, model};
};

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
    CHECK(eval.calls == 3 * 2); // one batch per step per pass (no near-cost pass by default)
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
    auto log = trace_lines(lines);
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

TEST_CASE("a traced prefix's cost is listed per Func and the allocator's share", "[search]") {
    // SEXTANT_DEBUG=2 with a trace: which Funcs (and how much allocator) a prefix costs, to see
    // a later decision make an earlier one cheaper.
    AnalyticalTransposeReduce t;
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    StatePtr best = beam_search(t.space, t.eval, opt, nullptr);
    REQUIRE(best);
    std::vector<std::string> lines;
    opt.trace = &best->decisions;
    opt.trace_costs = true;
    beam_search(t.space, t.eval, opt, nullptr, trace_lines(lines));
    REQUIRE(lines.size() == t.space.order().size());
    // The last line lists every Func with a buffer, and its parts add up to the prefix's cost.
    std::istringstream in(lines.back());
    std::string line;
    std::getline(in, line);
    const double predicted = std::stod(line.substr(line.find("prefix predicted ") + 17));
    double sum = 0;
    int funcs = 0, allocator = 0;
    while (std::getline(in, line)) {
        std::istringstream w(line);
        std::string name, ms;
        double v = 0;
        w >> name >> v >> ms;
        CHECK(ms == "ms");
        sum += v;
        if (name == "allocator")
            allocator++;
        else
            funcs++;
    }
    int with_buffers = 0;
    for (const FuncSched &f : best->decisions)
        with_buffers += f.placement == Placement::Root || f.placement == Placement::At;
    CHECK(allocator == 1);
    CHECK(funcs == with_buffers);
    CHECK(sum == Approx(predicted).epsilon(1e-4));
}

TEST_CASE("dropout with a seed is reproducible and greedy is a single pass", "[search]") {
    AnalyticalTransposeReduce t;
    const PipelineDag &dag = t.dag;
    SearchSpace &space = t.space;
    ModelEvaluator &eval = t.eval;
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

TEST_CASE("replay refuses a whole loop unrolled outside the vectors of a Func of no constant "
          "size",
          "[search]") {
    // stencil_2d: P computed per 4-row strip of C, C's x loop whole inside the strip. P's rows
    // in a strip are its split's inner part (constant); its x loop spans C's whole row.
    PipelineDag dag = test::stencil_2d();
    SearchSpace space(dag);
    const std::string head = "sextant-schedule 1\n"
                             "func C root\n"
                             "  stage 0 loops x:inner y:split4 vector 8 unroll 1 parallel 1\n"
                             "func P at C 1\n";
    // Rows split by 2, the inner part unrolled: replayed.
    StatePtr ok = space.replay(head + "  stage 0 loops x:inner y:split2 vector 8 unroll 1 "
                                      "parallel 0 unroll_outer\n");
    CHECK(ok->decisions[0].stages[0].unroll_outer == 1);
    // The whole y loop unrolled: a trip count of P's region.
    CHECK_THROWS_WITH(space.replay(head + "  stage 0 loops x:inner y:inner vector 8 unroll 1 "
                                          "parallel 0 unroll_outer\n"),
                      Catch::Contains("unrolls loop 'y' outside its vectors"));
}

TEST_CASE("replay refuses a parallel loop whose iterations depend on each other", "[search]") {
    // transpose_reduce: S(x) += T(x, r). The update's outermost loop runs in parallel: x (its
    // points independent) is replayed; r moved outside it (r:outer) is a race Halide refuses.
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space(dag);
    const std::string head = "sextant-schedule 1\n"
                             "func S root\n"
                             "  stage 0 loops x:inner vector 8 unroll 1 parallel 1\n";
    StatePtr ok =
        space.replay(head + "  stage 1 loops r:inner x:inner vector 1 unroll 1 parallel 1\n"
                            "func T inline\n");
    CHECK(ok->decisions[1].stages[1].parallel == 1);
    CHECK_THROWS_WITH(space.replay(head + "  stage 1 loops r:outer x:inner vector 1 unroll 1 "
                                          "parallel 1\nfunc T inline\n"),
                      Catch::Contains("runs loop 'r' in parallel, but its iterations depend on "
                                      "each other (an RVar)"));
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

TEST_CASE("shared chunks copy on write inline and past the inline pointers alike", "[search]") {
    // 2 elements a chunk, 3 chunk pointers inline: 11 elements need 6 chunks, 3 of them on
    // the heap.
    using Array = SharedChunks<int, 2, 3>;
    Array a(11);
    for (size_t i = 0; i < a.size(); i++)
        a.set(i, int(i));
    REQUIRE(a.chunks() == 6);
    Array b = a; // shares every chunk
    CHECK(b == a);
    b.set(1, 100);  // an inline chunk: copied, the other array keeps its value
    b.set(10, 200); // a chunk whose pointer is on the heap: the same
    CHECK(a[1] == 1);
    CHECK(a[10] == 10);
    CHECK(b[1] == 100);
    CHECK(b[10] == 200);
    CHECK(b[9] == 9);
    CHECK(b != a);
    b.resize(3); // back to inline chunks only; the dropped elements do not come back
    CHECK(b.chunks() == 2);
    b.resize(12);
    CHECK(b.chunks() == 6);
    CHECK(b[1] == 100);
    CHECK(b[2] == 2);
    for (size_t i = 3; i < 12; i++)
        CHECK(b[i] == 0);
    CHECK(a[10] == 10); // still untouched
    std::vector<int> seen(a.begin(), a.end());
    CHECK(seen.size() == 11);
    CHECK(seen.back() == 10);
}
