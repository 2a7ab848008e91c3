// A Func its consumer reads through a clamp of the consumer's own coordinates has no region
// of constant size inside the consumer's tiles that Halide can see, so no register tile
// unrolls a whole loop over it (search/Tails.h, read_through_moving_clamp): random pipeline
// 3021's did, and Halide unrolled 8 x 3 rows to 6,440 guarded copies of the vector loop that LLVM
// did not compile in 5 minutes.
#include "DagHelpers.h"
#include "search/ScheduleText.h"
#include "search/SearchSpace.h"
#include "search/Tails.h"

#include <catch2/catch.hpp>

using namespace Halide;

namespace {

/** mm(x, y) = sum_k w(x, k) * in(k, y), 64 x 32, read by `out` through a clamp of both
 * coordinates (`clamped`) or as is; `out` adds a 256-entry table indexed by the input's
 * value, clamped. */
sextant::PipelineDag matmul_reader(bool clamped) {
    const std::string tag = clamped ? "_c" : "_d";
    ImageParam in(UInt(8), 2, "in" + tag), w(Float(32), 2, "w" + tag);
    Var x("x"), y("y");
    RDom k(0, 16, "k");
    Func mm("mm" + tag), table("table" + tag), out("out" + tag);
    table(x) = cast<float>(x) * 0.5f;
    mm(x, y) = 0.0f;
    // Its reads of the inputs clamped to them, as the random pipelines' guards do (else
    // shrinks_at_edges keeps it out of the consumer's loops altogether).
    mm(x, y) += w(clamp(x, 0, 63), k) * cast<float>(in(k, clamp(y, 0, 31)));
    Expr read = clamped ? mm(clamp(x, 0, 63), clamp(y, 0, 31)) : mm(x, y);
    out(x, y) = read + table(clamp(cast<int>(in(x % 16, y)), 0, 255));
    out.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
    in.set_estimates({{0, 16}, {0, 32}});
    w.set_estimates({{0, 64}, {0, 16}});
    return sextant::test::build({out}, sextant::test::two_cores());
}

/** `out` in 16 x 8 tiles, `mm` per tile with its update's rows unrolled (a register tile). */
std::string register_tile_text(const std::string &tag) {
    return "sextant-schedule 1\n"
           "func out" +
           tag +
           " root\n"
           "  stage 0 loops x:split16 y:split8 vector 8 unroll 1 parallel 0\n"
           "func table" +
           tag +
           " root\n"
           "  stage 0 loops x:inner vector 8 unroll 1 parallel 0\n"
           "func mm" +
           tag + " at out" + tag +
           " 1\n"
           "  stage 0 loops x:inner y:inner vector 8 unroll 1 parallel 0\n"
           "  stage 1 loops k$x:outer x:inner y:inner vector 8 unroll 1 parallel 0 "
           "unroll_outer 1\n";
}

} // namespace

TEST_CASE("a Func read through a clamp of its consumer's coordinates gets no register tile",
          "[search]") {
    const sextant::PipelineDag clamped = matmul_reader(true), direct = matmul_reader(false);
    const int mm_c = clamped.find_func("mm_c"), mm_d = direct.find_func("mm_d");
    REQUIRE(mm_c >= 0);
    REQUIRE(mm_d >= 0);
    CHECK(sextant::read_through_moving_clamp(clamped, mm_c));
    CHECK_FALSE(sextant::read_through_moving_clamp(direct, mm_d));
    // The DAG builder records it once per Func, for the search's nests to read.
    CHECK(clamped.funcs[size_t(mm_c)].read_through_clamp);
    CHECK_FALSE(direct.funcs[size_t(mm_d)].read_through_clamp);
    // A table indexed by loaded values is clamped to constant bounds.
    CHECK_FALSE(sextant::read_through_moving_clamp(clamped, clamped.find_func("table_c")));

    sextant::SearchSpace direct_space(direct);
    sextant::StatePtr s;
    REQUIRE_NOTHROW(s = direct_space.replay(register_tile_text("_d")));
    CHECK(s->nests[size_t(mm_d)]->constant_size);
    sextant::SearchSpace clamped_space(clamped);
    CHECK_THROWS_WITH(clamped_space.replay(register_tile_text("_c")),
                      Catch::Contains("unrolls loop 'y'") && Catch::Contains("through a clamp"));
    // Without the unrolled rows the same placement replays, and its buffer is not constant.
    std::string text = register_tile_text("_c");
    text.erase(text.find(" unroll_outer 1"), std::string(" unroll_outer 1").size());
    REQUIRE_NOTHROW(s = clamped_space.replay(text));
    CHECK_FALSE(s->nests[size_t(mm_c)]->constant_size);

    // Nor does the search offer one (it does for the direct read).
    auto register_tiles_offered = [](const sextant::PipelineDag &dag, const std::string &tag) {
        const sextant::Decisions want = sextant::parse_schedule_text(dag, register_tile_text(tag));
        sextant::SearchSpace space(dag);
        sextant::StatePtr st = space.initial_state();
        const int mm = dag.find_func("mm" + tag);
        for (int f : space.order()) {
            if (f == mm) break;
            st = space.make_child(*st, want[size_t(f)]);
        }
        int tiles = 0;
        // Children unrolling a whole loop of mm's update (not a split's inner part).
        space.children(*st, sextant::SearchSpaceOptions{}, [&](sextant::StatePtr c) {
            const sextant::FuncSched &g = c->decisions[size_t(mm)];
            if (g.placement != sextant::Placement::At) return;
            const sextant::Stage &update = dag.stage(mm, 1);
            bool whole = false;
            for (const sextant::ConcreteLoop &l : c->nests[size_t(mm)]->stages[1].order)
                whole |= l.unrolled && !update.loops[size_t(l.stage_loop)].is_rvar &&
                         g.stages[1].loops[size_t(l.stage_loop)].mode != sextant::LoopMode::Split;
            tiles += whole;
        });
        return tiles;
    };
    CHECK(register_tiles_offered(direct, "_d") > 0);
    CHECK(register_tiles_offered(clamped, "_c") == 0);
}
