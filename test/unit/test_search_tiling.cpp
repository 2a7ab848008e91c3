// Tiling rules of the search space: tails of update splits (Tails.h), vector widths of
// guarded splits, reduction splits and multi-level tiling (bands), with their ScheduleText
// and directives.
#include "TinyDags.h"
#include "search/Directives.h"
#include "search/LoopNest.h"
#include "search/ScheduleConstructs.h"
#include "search/ScheduleText.h"
#include "search/SearchSpace.h"
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

using namespace sextant;

TEST_CASE("an update's vector loop is a split tail's inner part only when one vector wide",
          "[search]") {
    // S(x) += T(x, r), x over 128 points (8 f32 lanes). An update's split is GuardWithIf, and a
    // vectorized inner part longer than one vector made Halide 14 write outside the buffer
    // where the split left a tail (random pipeline 608); whether it does depends on the size
    // the pipeline runs at, so even splits that divide the estimate are one vector.
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space(dag);
    const Stage &u = dag.stage(1, 1); // loops r, x
    std::set<int64_t> tiles;          // split factors of x with a vector loop
    bool whole = false;               // x whole and vectorized
    for (const StageSched &s : space.tilings(u, u.full_loop_box(), true, false)) {
        if (s.vector_width <= 1) continue;
        if (s.loops[1].mode == LoopMode::Split) tiles.insert(s.loops[1].tile);
        whole |= s.loops[1].mode != LoopMode::Split;
    }
    // One vector: 8 lanes, or 16 as one two-register vector.
    CHECK(tiles == std::set<int64_t>{8, 16});
    CHECK(whole);
}

namespace {
/** transpose_reduce with S internal (read by an output O(x) = S(x)), and T reading the input
 * either directly or through a clamp of x to the input's columns. */
PipelineDag internal_reduce(bool clamped_input) {
    PipelineDag dag = test::transpose_reduce_with_output();
    if (clamped_input) {
        for (Edge &e : dag.edges) {
            if (e.kind != ProducerKind::Input) continue;
            // in(y, clamp(x, 0, 127)): dim 1 needs [max(min x, 0), min(max x, 127)].
            e.min[1] = BoundExpr::binary(BoundExpr::Op::Max, BoundExpr::loop_min(0),
                                         BoundExpr::constant(0));
            e.max[1] = BoundExpr::binary(BoundExpr::Op::Min, BoundExpr::loop_max(0),
                                         BoundExpr::constant(127));
        }
    }
    dag.link();
    return dag;
}

std::set<int64_t> vector_split_tiles(const PipelineDag &dag) {
    SearchSpace space(dag);
    const Stage &u = dag.stage(1, 1); // loops r, x
    std::set<int64_t> tiles;
    for (const StageSched &s : space.tilings(u, u.full_loop_box(), true, false))
        if (s.vector_width > 1 && s.loops[1].mode == LoopMode::Split) tiles.insert(s.loops[1].tile);
    return tiles;
}
} // namespace

TEST_CASE("an update's pure splits round up where the Func may grow and are guarded elsewhere",
          "[search]") {
    // Output S: its buffer is the user's, so its update's splits are GuardWithIf; RVars always
    // are; a pure definition keeps Halide's default.
    PipelineDag out = test::transpose_reduce();
    CHECK(split_tail(out, 1, 1, 1) == Tail::GuardWithIf);
    CHECK(split_tail(out, 1, 1, 0) == Tail::GuardWithIf);
    CHECK(split_tail(out, 1, 0, 0) == Tail::ShiftInwards);
    // Internal S, but T reads the input unclamped: more points of S read more of the input.
    PipelineDag raw = internal_reduce(false);
    CHECK(growth_reads_inputs_outside(raw, 1, 0));
    CHECK(split_tail(raw, 1, 1, 1) == Tail::GuardWithIf);
    // Read through a clamp, S may grow to whole tiles.
    PipelineDag clamped = internal_reduce(true);
    CHECK_FALSE(growth_reads_inputs_outside(clamped, 1, 0));
    CHECK(split_tail(clamped, 1, 1, 1) == Tail::RoundUp);
    CHECK(split_tail(clamped, 1, 1, 0) == Tail::GuardWithIf); // r
    // Unless a producer S reads is an output: its buffer is the user's too.
    PipelineDag t_out = internal_reduce(true);
    t_out.funcs[0].is_output = true;
    CHECK(split_tail(t_out, 1, 1, 1) == Tail::GuardWithIf);

    // Guarded splits vectorize one vector (8 lanes, or 16 as two registers); rounded-up ones
    // any inner part.
    CHECK(vector_split_tiles(raw) == std::set<int64_t>{8, 16});
    const std::set<int64_t> wide = vector_split_tiles(clamped);
    CHECK(wide.count(8) == 1);
    CHECK(wide.count(64) == 1);

    // The directives: the split of x rounds up; vectorizing its inner part is a split of a
    // split, which Halide rounds up only for the definition's own vars: guarded (never taken).
    Decisions d(3);
    d.mut(2).placement = Placement::Root;
    d.mut(2).stages = {test::sched({{LoopMode::Inner, 0}}, 8, 0)};
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {test::sched({{LoopMode::Inner, 0}}, 8, 0),
                       test::sched({{LoopMode::Outer, 0}, {LoopMode::Split, 64}}, 8, 0)};
    d.mut(0).placement = Placement::Inline;
    std::vector<Directive> ds = make_directives(clamped, d);
    int checked = 0;
    for (const Directive &x : ds) {
        if (x.func != 1 || x.stage != 1) continue;
        if (x.kind == Directive::Kind::Split) {
            CHECK(x.tail == Tail::RoundUp);
            checked++;
        } else if (x.kind == Directive::Kind::Vectorize) {
            CHECK(x.vars[0].name == "x_i");
            CHECK(x.tail == Tail::GuardWithIf);
            checked++;
        }
    }
    CHECK(checked == 2);
}

TEST_CASE("reduction splits: the outermost RVar in chunks, its inner part just outside the "
          "vector loop",
          "[search]") {
    // S(x) += T(x, r): T is a Func read along r (64 steps), so when T is placed, S's update is
    // offered with r in chunks and T computed per chunk; never among S's own tilings.
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space(dag);
    const Stage &u = dag.stage(1, 1); // loops r, x
    for (const StageSched &s : space.tilings(u, u.full_loop_box(), true, false, 100000))
        CHECK(s.loops[0].mode != LoopMode::Split);
    FuncSched s_root;
    s_root.placement = Placement::Root;
    s_root.stages = {test::sched({{LoopMode::Inner, 0}}, 8, 0),
                     test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    StatePtr after_s = space.make_child(*space.initial_state(), s_root);
    std::vector<StatePtr> kids;
    space.children(*after_s, {}, &kids);
    std::set<int64_t> chunks;
    for (const StatePtr &k : kids) {
        const LoopTiling &r = k->decisions[1].stages[1].loops[0];
        const FuncSched &t = k->decisions[0];
        if (r.mode != LoopMode::Split) continue;
        CHECK(t.placement == Placement::At);
        CHECK(k->nests[1]->stages[1].order[size_t(t.at_level)].outer_part);
        chunks.insert(r.tile);
    }
    CHECK(chunks == std::set<int64_t>{4, 8, 16});

    StageSched sc = test::sched({{LoopMode::Split, 8}, {LoopMode::Inner, 0}}, 8, 0);
    StageNest n = make_stage_nest(u, sc, u.full_loop_box());
    REQUIRE(n.order.size() == 3);
    CHECK((n.order[0].stage_loop == 0 && n.order[0].outer_part && n.order[0].extent == 8));
    CHECK((n.order[1].stage_loop == 0 && !n.order[1].outer_part && n.order[1].extent == 8));
    CHECK((n.order[2].stage_loop == 1 && n.order[2].vectorized));

    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    d.mut(1).stages = {test::sched({{LoopMode::Inner, 0}}, 8, 0), sc};
    d.mut(0).placement = Placement::At;
    d.mut(0).at_func = 1;
    d.mut(0).at_stage = 1;
    d.mut(0).at_level = 0; // per chunk of r
    d.mut(0).stages = {test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    const std::string text = to_schedule_text(dag, d);
    CHECK(text.find("loops r:split8 x:inner") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
    bool split_r = false;
    for (const Directive &x : make_directives(dag, d)) {
        if (x.kind == Directive::Kind::Split && x.func == 1) {
            split_r = x.vars[1].name == "r_o" && x.vars[1].is_rvar && x.tail == Tail::GuardWithIf;
        }
        if (x.kind == Directive::Kind::ComputeAt && x.func == 0) CHECK(x.vars[0].name == "r_o");
    }
    CHECK(split_r);

    // Two RVars (r inside r2): only r2, the outermost, may be split, and r must then run with
    // its inner part; anything else reorders the reduction (Halide's error).
    PipelineDag two = test::transpose_reduce();
    LoopDim r2;
    r2.name = "r2";
    r2.is_rvar = true;
    r2.range = {0, 3};
    auto &loops = two.funcs[1].stages[1].loops;
    loops.insert(loops.begin() + 1, r2);
    auto with = [&](const std::string &modes) {
        return "sextant-schedule 1\nfunc S root\n  stage 0 loops x:inner vector 8 unroll 1 "
               "parallel 0\n  stage 1 loops " +
               modes + " vector 8 unroll 1 parallel 0\nfunc T inline\n";
    };
    CHECK_NOTHROW(parse_schedule_text(two, with("r:middle r2:split2 x:inner")));
    CHECK_THROWS_WITH(parse_schedule_text(two, with("r:split8 r2:middle x:inner")),
                      Catch::Contains("only the outermost RVar"));
    CHECK_THROWS_WITH(parse_schedule_text(two, with("r:inner r2:split2 x:inner")),
                      Catch::Contains("other RVars 'middle'"));
}

TEST_CASE("multi-level tiling: a band between strip and tile, a producer computed per band",
          "[search]") {
    // C(x, y) over 64 x 32 reads P(x, y-1..y+1). C's y in strips of 16 rows, bands of 4, tiles
    // of 2 (x whole, vectorized): y_o, y_m, y_i, x.
    PipelineDag dag = test::stencil_2d();
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    LoopTiling y{LoopMode::Split, 2, 16};
    StageSched cs = test::sched({{LoopMode::Inner, 0}, y}, 8, 1);
    d.mut(1).stages = {cs};
    const Stage &c = dag.stage(1, 0);
    StageNest n = make_stage_nest(c, cs, c.full_loop_box());
    REQUIRE(n.order.size() == 4);
    CHECK((n.order[0].outer_part && n.order[0].extent == 2 && n.order[0].span == 16));
    CHECK((n.order[1].band_part && n.order[1].extent == 8 && n.order[1].span == 2));
    CHECK((!n.order[2].outer_part && !n.order[2].band_part && n.order[2].extent == 2));
    CHECK(n.order[3].vectorized);
    // P per band: 2 rows of C need 4 rows of P, 8 bands per strip, 2 strips.
    d.mut(0) = {
        Placement::At, 1, 1, -1, {test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)}};
    Nests nests = build_all_nests(dag, d);
    CHECK(nests[0]->realizations == 16);
    CHECK(nests[0]->region[1].extent() == 4);

    const std::string text = to_schedule_text(dag, d);
    CHECK(text.find("y:split16/2") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
    std::vector<std::string> calls;
    for (const Directive &x : make_directives(dag, d)) {
        if (x.kind == Directive::Kind::Split)
            calls.push_back("split " + x.vars[0].name + " " + x.vars[1].name + " " +
                            x.vars[2].name + " " + std::to_string(x.factor));
        if (x.kind == Directive::Kind::ComputeAt) calls.push_back("at " + x.vars[0].name);
    }
    CHECK(calls == std::vector<std::string>{"at y_m", "split y y_o y_b 16", "split y_b y_m y_i 2"});
    auto with = [&](const std::string &y_mode) {
        return "sextant-schedule 1\nfunc C root\n  stage 0 loops x:inner y:" + y_mode +
               " vector 8 unroll 1 parallel 1\nfunc P inline\n";
    };
    CHECK_NOTHROW(parse_schedule_text(dag, with("split8/4")));
    CHECK_THROWS_WITH(parse_schedule_text(dag, with("split6/4")),
                      Catch::Contains("multiple of its tile"));
    CHECK_THROWS_WITH(parse_schedule_text(dag, with("split4/4")),
                      Catch::Contains("multiple of its tile"));
    CHECK_THROWS_WITH(parse_schedule_text(dag, with("splitx/4")),
                      Catch::Contains("bad split factor"));

    // The search offers the band where a producer can use it: C decided with y in tiles of 2,
    // P's children include C re-tiled with bands of 4 tiles (8 rows) and P computed per band.
    SearchSpace space(dag);
    FuncSched c0;
    c0.placement = Placement::Root;
    c0.stages = {test::sched({{LoopMode::Inner, 0}, {LoopMode::Split, 2}}, 8, 1)};
    StatePtr after_c = space.make_child(*space.initial_state(), c0);
    std::vector<StatePtr> kids;
    space.children(*after_c, {}, &kids);
    bool per_band = false;
    for (const StatePtr &k : kids) {
        const LoopTiling &t = k->decisions[1].stages[0].loops[1];
        const FuncSched &p = k->decisions[0];
        if (t.band != 8 || p.placement != Placement::At) continue;
        const StageNest &cn = k->nests[1]->stages[0];
        per_band |= cn.order[size_t(p.at_level)].band_part;
    }
    CHECK(per_band);
}

TEST_CASE("split sizes and caps are SearchSpaceOptions, set from text", "[search]") {
    SearchSpaceOptions opt;
    CHECK(parse_search_space_options("", &opt).empty());
    CHECK(parse_search_space_options(
              "split_factors=3/5,vector_splits=2:4,band_tiles=8,large_pipeline_funcs=7,"
              "retile_consumers=0,max_inlined_body_nodes=100",
              &opt)
              .empty());
    CHECK(opt.split_factors.fine == std::vector<int64_t>{3, 5});
    CHECK(opt.split_factors.coarse == std::vector<int64_t>{8}); // kept: no ':' part
    CHECK(opt.vector_splits.fine == std::vector<int64_t>{2});
    CHECK(opt.vector_splits.coarse == std::vector<int64_t>{4});
    CHECK(opt.band_tiles == std::vector<int64_t>{8});
    CHECK(opt.large_pipeline_funcs == 7);
    CHECK(!opt.retile_consumers);
    CHECK(opt.max_inlined_body_nodes == 100);
    // Errors name the key and leave the options as they were.
    SearchSpaceOptions before = opt;
    CHECK_THAT(parse_search_space_options("split_factor=4", &opt),
               Catch::Contains("unknown key 'split_factor'") && Catch::Contains("split_factors"));
    CHECK_THAT(parse_search_space_options("split_factors=4/0", &opt),
               Catch::Contains("split_factors: '0' is not a size"));
    CHECK_THAT(parse_search_space_options("band_tiles=4,retile_consumers=maybe", &opt),
               Catch::Contains("retile_consumers: expects 0, 1"));
    CHECK_THAT(parse_search_space_options("tilings_per_stage", &opt),
               Catch::Contains("is not key=value"));
    CHECK(opt.band_tiles == before.band_tiles);

    // The tilings follow the lists: the 2-D stencil's output C splits y (32 rows) by exactly
    // the listed factors that are shorter than y.
    PipelineDag dag = test::stencil_2d();
    SearchSpace space(dag);
    const Stage &c = dag.stage(1, 0); // loops x, y
    auto factors = [&](const std::vector<StageSched> &tilings) {
        std::set<int64_t> out;
        for (const StageSched &t : tilings)
            if (t.loops[1].mode == LoopMode::Split) out.insert(t.loops[1].tile);
        return out;
    };
    SearchSpaceOptions custom;
    REQUIRE(parse_search_space_options("split_factors=3/5/64,tilings_per_stage=100000", &custom)
                .empty());
    SearchSpaceOptions defaults;
    defaults.tilings_per_stage = 100000;
    CHECK(factors(space.tilings(c, c.full_loop_box(), true, custom)) == std::set<int64_t>{3, 5});
    CHECK(factors(space.tilings(c, c.full_loop_box(), true, defaults)) ==
          std::set<int64_t>{2, 3, 4, 6, 8, 12, 16});
    // The search's memoized tilings are keyed on the lists as well: children made with the
    // defaults and then with the custom lists each get their own.
    auto child_factors = [&](const SearchSpaceOptions &o) {
        std::vector<StatePtr> kids;
        space.children(*space.initial_state(), o, &kids);
        std::vector<StageSched> tilings;
        for (const StatePtr &k : kids)
            tilings.push_back(k->decisions[1].stages[0]);
        return factors(tilings);
    };
    CHECK(child_factors(defaults).count(2));
    CHECK(child_factors(custom) == std::set<int64_t>{3, 5});
}

TEST_CASE("a parallel prefix of two loops is fused into one parallel loop", "[search]") {
    // C(x, y) with both loops split: order y_o, x_o, y_i, x_i (outermost first), the first two
    // parallel. P is computed inside C.
    PipelineDag dag = test::stencil_2d();
    auto decisions = [&](int p_level, int p_store) {
        Decisions d(2);
        d.mut(1).placement = Placement::Root;
        d.mut(1).stages = {test::sched({{LoopMode::Split, 16}, {LoopMode::Split, 8}}, 8, 2)};
        d.mut(0).placement = Placement::At;
        d.mut(0).at_func = 1;
        d.mut(0).at_level = p_level;
        d.mut(0).store_level = p_store;
        d.mut(0).stages = {test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
        return d;
    };
    auto find = [](const std::vector<Directive> &ds, Directive::Kind k, int func) {
        std::vector<Directive> out;
        for (const Directive &x : ds)
            if (x.kind == k && x.func == func) out.push_back(x);
        return out;
    };
    using K = Directive::Kind;
    // P per tile (inside both parallel loops): fused, and P's compute_at names the fused loop
    // when it is computed at the innermost parallel loop.
    for (int level : {1, 2}) {
        Decisions d = decisions(level, -1);
        REQUIRE(fused_parallel_loops(dag, d, 1, 0) == 2);
        std::vector<Directive> ds = make_directives(dag, d);
        std::vector<Directive> fuse = find(ds, K::Fuse, 1), par = find(ds, K::Parallel, 1);
        REQUIRE(fuse.size() == 1);
        CHECK(fuse[0].vars[0].name == "x_o"); // inner
        CHECK(fuse[0].vars[1].name == "y_o"); // outer
        CHECK(fuse[0].vars[2].name == "y_o_x_o_par");
        REQUIRE(par.size() == 1);
        CHECK(par[0].vars[0].name == "y_o_x_o_par");
        std::vector<Directive> at = find(ds, K::ComputeAt, 0);
        REQUIRE(at.size() == 1);
        CHECK(at[0].vars[0].name == (level == 1 ? "y_o_x_o_par" : "y_i"));
        const std::vector<std::string> kinds = schedule_constructs(dag, d);
        CHECK(std::find(kinds.begin(), kinds.end(), "fused_parallel") != kinds.end());
    }
    // P computed (or stored) per row strip, between the two parallel loops: nothing to fuse,
    // both loops parallel as before.
    for (auto [level, store] : {std::pair{0, -1}, std::pair{2, 0}}) {
        Decisions d = decisions(level, store);
        CHECK(fused_parallel_loops(dag, d, 1, 0) == 0);
        std::vector<Directive> ds = make_directives(dag, d);
        CHECK(find(ds, K::Fuse, 1).empty());
        CHECK(find(ds, K::Parallel, 1).size() == 2);
    }
}

TEST_CASE("register blocking unrolls the split part outside the vectors", "[search]") {
    PipelineDag dag = test::stencil_2d();
    Decisions d(2);
    d.mut(1).placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Split, 16}, {LoopMode::Split, 4}}; // y_o, x_o, y_i, x_i
    s.vector_width = 8;
    s.unroll = 2;
    s.unroll_outer = true;
    d.mut(1).stages = {s};
    d.mut(0).placement = Placement::Inline;
    std::string text = to_schedule_text(dag, d);
    CHECK(text.find("vector 8 unroll 2 parallel 0 unroll_outer") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
    bool unrolled_y_i = false;
    for (const Directive &x : make_directives(dag, d))
        if (x.kind == Directive::Kind::Unroll && x.factor == 0)
            unrolled_y_i = x.vars[0].name == "y_i";
    CHECK(unrolled_y_i);
    Nests n = build_all_nests(dag, d);
    CHECK(n[1]->stages[0].order[2].unrolled);
    // The tiling generator offers it for such a nest.
    SearchSpace space(dag);
    bool offered = false;
    for (const StageSched &t :
         space.tilings(dag.stage(1, 0), dag.stage(1, 0).full_loop_box(), true, false))
        offered |= t.unroll_outer;
    CHECK(offered);
}

TEST_CASE("a register tile unrolls every pure loop between the vectors and the reduction",
          "[search]") {
    // F over 8 x 3 x 4 points, all whole: order c, y, x (vector 8). unroll_outer 2 unrolls y
    // and c: 12 accumulator vectors, AVX2's budget (three quarters of 16 registers).
    PipelineDag dag = test::scale_3d(8, 3, 4);
    const Stage &st = dag.stage(0, 0);
    Decisions d(1);
    d.mut(0).placement = Placement::Root;
    StageSched s =
        test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0);
    s.unroll_outer = 2;
    d.mut(0).stages = {s};
    const std::string text = to_schedule_text(dag, d);
    CHECK(text.find("vector 8 unroll 1 parallel 0 unroll_outer 2") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
    auto replace = [&](const std::string &from, const std::string &to) {
        std::string t = text;
        t.replace(t.find(from), from.size(), to);
        return t;
    };
    CHECK_THROWS_WITH(parse_schedule_text(dag, replace("unroll_outer 2", "unroll_outer 3")),
                      Catch::Contains("unroll_outer needs 1 to 2 loops"));
    CHECK_THROWS_WITH(parse_schedule_text(dag, replace("unroll_outer 2", "unroll_outer 0")),
                      Catch::Contains("unroll_outer needs 1 to 2 loops"));
    CHECK_THROWS_WITH(parse_schedule_text(dag, replace("unroll_outer 2", "unroll_outer 2 y")),
                      Catch::Contains("unexpected 'y'"));
    CHECK_THROWS_WITH(parse_schedule_text(dag, replace("unroll_outer 2", "unroll_outer y")),
                      Catch::Contains("unexpected 'y'"));
    const Nests n = build_all_nests(dag, d);
    const auto &order = n[0]->stages[0].order;
    REQUIRE(order.size() == 3);
    CHECK(order[0].unrolled); // c
    CHECK(order[1].unrolled); // y
    CHECK(!order[2].unrolled);
    CHECK(order[2].vectorized);
    std::vector<std::string> unrolled;
    for (const Directive &x : make_directives(dag, d))
        if (x.kind == Directive::Kind::Unroll && x.factor == 0) unrolled.push_back(x.vars[0].name);
    CHECK(unrolled == std::vector<std::string>{"c", "y"});

    // What the search offers: the loops outside the vectors while their accumulators fit.
    SearchSpace space(dag);
    const StageSched plain =
        test::sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0);
    auto box = [](int64_t X, int64_t Y, int64_t C) {
        return Box64{{0, X - 1}, {0, Y - 1}, {0, C - 1}};
    };
    CHECK(space.register_tile_loops(st, plain, box(8, 3, 4)) == 2);
    CHECK(space.register_tile_loops(st, plain, box(8, 3, 5)) == 1); // 15 vectors: c stays
    CHECK(space.register_tile_loops(st, plain, box(8, 1, 4)) == 0); // y of one point stops it
    StageSched wide = plain; // two registers a vector: 6 for y, 24 with c
    wide.vector_width = 16;
    CHECK(space.register_tile_loops(st, wide, box(16, 3, 4)) == 1);
    StageSched outer = plain; // c in the outer group is no part of a tile
    outer.loops[2] = {LoopMode::Outer, 0};
    CHECK(space.register_tile_loops(st, outer, box(8, 3, 4)) == 1);
    StageSched split = plain; // order y.outer, c, y.inner (2), x: y.inner and c, 8 vectors
    split.loops[1] = {LoopMode::Split, 2};
    CHECK(space.register_tile_loops(st, split, box(8, 3, 4)) == 2);
    StageSched scalar = plain;
    scalar.vector_width = 1;
    CHECK(space.register_tile_loops(st, scalar, box(8, 3, 4)) == 0);
}

TEST_CASE("lanes in flight stop where a value of the widest arithmetic fills four registers",
          "[search]") {
    // C as an 8-bit Func (32 natural AVX2 lanes) over 64 x 32 points.
    PipelineDag dag = test::stencil_2d();
    FuncNode &c = dag.funcs[1];
    c.value_types = {TypeClass::U8};
    c.bytes_per_point = 1;
    Stage &st = c.stages[0];
    SearchSpace narrow(dag);
    int most = 0; // widest vector times unrolling offered
    auto lanes_offered = [&](const SearchSpace &space) {
        most = 0;
        for (const StageSched &t : space.tilings(st, st.full_loop_box(), true, false))
            most = std::max(most, t.vector_width * t.unroll);
        return most;
    };
    // Its arithmetic in f32 (4 bytes a lane): 32 lanes are four registers a value.
    CHECK(lanes_offered(narrow) == 32);
    // In 8 bits: two vectors of 32 lanes, as for any stage.
    st.ops = OpHistogram{};
    st.ops.at(OpKind::Add, TypeClass::U8) = 2;
    SearchSpace wide(dag);
    CHECK(lanes_offered(wide) == 64);
}
