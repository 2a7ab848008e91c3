// What the search offers beside a stage's plain tilings: a short loop unrolled inside the
// vectors (StageSched::unrolled_inside: its text, rules, directives, and where the one-shot
// search and autotuning offer it) and autotuning's narrower vectors.
#include "TinyDags.h"
#include "search/Directives.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"
#include "search/SearchSpace.h"
#include <catch2/catch.hpp>
#include <set>

using namespace sextant;

TEST_CASE("a short loop unrolled inside the vectors: text, checks, directives, autotune offers",
          "[search]") {
    // F(x, y, c) over 64 x 32 x 3: c kept whole in the inner group (order c, y_o?, y, x).
    PipelineDag dag = test::scale_3d(64, 32, 3);
    Decisions d(1);
    d.mut(0).placement = Placement::Root;
    StageSched s;
    s.loops = {{LoopMode::Inner}, {LoopMode::Split, 8}, {LoopMode::Inner}}; // y_o, c, y_i, x
    s.vector_width = 8;
    s.parallel = 1;
    s.unrolled_inside = 2;
    d.mut(0).stages = {s};
    CHECK(unrolled_inside_problem(dag, d, 0, 0, 2).empty());
    const std::string text = to_schedule_text(dag, d);
    CHECK(text.find("vector 8 unroll 1 parallel 1 unroll_inside c\n") != std::string::npos);
    CHECK(parse_schedule_text(dag, text) == d);
    // c's first 3 points become the innermost loop, unrolled; x stays the vector loop.
    std::vector<std::string> order;
    bool split = false, unrolled = false, vectorized_x = false;
    for (const Directive &x : make_directives(dag, d)) {
        if (x.kind == Directive::Kind::Split && x.vars[2].name == "c_ui")
            split = x.factor == 3 && x.tail == Tail::GuardWithIf && x.vars[1].name == "c";
        if (x.kind == Directive::Kind::Reorder)
            for (const LoopVar &v : x.vars)
                order.push_back(v.name);
        unrolled |= x.kind == Directive::Kind::Unroll && x.factor == 0 && x.vars[0].name == "c_ui";
        vectorized_x |= x.kind == Directive::Kind::Vectorize && x.vars[0].name == "x";
    }
    CHECK(split);
    CHECK(order == std::vector<std::string>{"c_ui", "x", "y_i", "c", "y_o"});
    CHECK(unrolled);
    CHECK(vectorized_x);
    // What it refuses, by name.
    Decisions bad = d;
    bad.mut(0).stages[0].vector_width = 1;
    CHECK(unrolled_inside_problem(dag, bad, 0, 0, 2) == "the stage is not vectorized");
    bad = d;
    bad.mut(0).stages[0].loops[2] = {LoopMode::Outer};
    CHECK(unrolled_inside_problem(dag, bad, 0, 0, 2).find("inner group") != std::string::npos);
    CHECK(unrolled_inside_problem(dag, d, 0, 0, 1).find("inner group") != std::string::npos);
    CHECK(unrolled_inside_problem(dag, d, 0, 0, 0).find("64 points") != std::string::npos);
    std::string wrong = text;
    wrong.replace(wrong.find("unroll_inside c"), 15, "unroll_inside y");
    CHECK_THROWS_WITH(parse_schedule_text(dag, wrong),
                      Catch::Contains("unroll_inside: 'y' must be whole in the inner group"));
    PipelineDag wide = test::scale_3d(64, 32, 5);
    CHECK(unrolled_inside_problem(wide, d, 0, 0, 2).find("5 points") != std::string::npos);
    // Autotuning's tilings offer it; the one-shot search only with
    // SearchSpaceOptions::unroll_inside (off by default: docs/SEARCH.md, session 43).
    SearchSpace space(dag);
    const Stage &st = dag.stage(0, 0);
    SearchSpaceOptions opt;
    opt.tilings_per_stage = 12; // thinned
    int plain = 0, on = 0, extra = 0;
    const std::vector<StageSched> base = space.tilings(st, st.full_loop_box(), true, opt);
    REQUIRE(base.size() == 12);
    for (const StageSched &t : base)
        plain += t.unrolled_inside >= 0;
    opt.unroll_inside = true;
    std::vector<StageSched> others; // the twins come after the thinning, taking no one's place
    for (const StageSched &t : space.tilings(st, st.full_loop_box(), true, opt))
        t.unrolled_inside == 2 ? void(on++) : others.push_back(t);
    CHECK(others == base);
    opt.unroll_inside = false;
    opt.autotune_tilings = true;
    for (const StageSched &t : space.tilings(st, st.full_loop_box(), true, opt))
        extra += t.unrolled_inside == 2;
    CHECK(plain == 0);
    CHECK(on > 0);
    CHECK(extra > 0);
    // ... and where the copies share a gather (shares_gather): F(x, y, c) = in(x, y, c) *
    // in(t(x, y), 0, 0), t read from loaded values, the same for every c.
    PipelineDag table = dag;
    Load gather = table.funcs[0].stages[0].loads[0];
    gather.data_dependent = true;
    for (int d = 0; d < 3; d++)
        for (int l = 0; l < 3; l++)
            gather.jacobian[size_t(d * 3 + l)] = {0, 1, d == 0 && l < 2 ? false : true};
    table.funcs[0].stages[0].loads.push_back(gather);
    CHECK(!shares_gather(st, 2));
    CHECK(shares_gather(table.stage(0, 0), 2));
    CHECK_FALSE(shares_gather(table.stage(0, 0), 0)); // it moves with x
    SearchSpace shared(table);
    opt.autotune_tilings = false;
    int twins = 0;
    for (const StageSched &t : shared.tilings(table.stage(0, 0), st.full_loop_box(), true, opt))
        twins += t.unrolled_inside == 2;
    CHECK(twins > 0);
    // Where the index moves with c, no copy shares it: no twins.
    table.funcs[0].stages[0].loads.back().jacobian[size_t(0 * 3 + 2)] = {0, 1, false};
    SearchSpace moving(table);
    twins = 0;
    for (const StageSched &t : moving.tilings(table.stage(0, 0), st.full_loop_box(), true, opt))
        twins += t.unrolled_inside == 2;
    CHECK(twins == 0);
}

TEST_CASE("autotuning's tilings add half the lanes where the widest arithmetic fills more than "
          "two registers",
          "[search]") {
    // C as an 8-bit Func (32 natural AVX2 lanes) computing in f32: 32 lanes are four registers.
    PipelineDag dag = test::stencil_2d();
    FuncNode &c = dag.funcs[1];
    c.value_types = {TypeClass::U8};
    c.bytes_per_point = 1;
    const Stage &st = c.stages[0];
    SearchSpace space(dag);
    SearchSpaceOptions opt;
    auto widths = [&] {
        std::set<int> w;
        for (const StageSched &t : space.tilings(st, st.full_loop_box(), true, opt))
            w.insert(t.vector_width);
        return w;
    };
    CHECK(widths() == std::set<int>{32});
    opt.autotune_tilings = true;
    CHECK(widths() == std::set<int>{16, 32});
    // In 8 bits 32 lanes are one register: nothing narrower.
    PipelineDag narrow = dag;
    narrow.funcs[1].stages[0].ops = OpHistogram{};
    narrow.funcs[1].stages[0].ops.at(OpKind::Add, TypeClass::U8) = 2;
    SearchSpace space8(narrow);
    std::set<int> w8;
    for (const StageSched &t :
         space8.tilings(narrow.stage(1, 0), narrow.stage(1, 0).full_loop_box(), true, opt))
        w8.insert(t.vector_width);
    CHECK(w8.count(16) == 0);
}
