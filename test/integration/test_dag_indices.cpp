// DagBuilder's index analysis where a definition hides its indices: common subexpressions in
// lets (Halide's inline reductions lift them), and staircase or sawtooth indices of block
// transforms (`x - x % 8`, `x % 8`).
#include "DagHelpers.h"

#include <catch2/catch.hpp>

using namespace Halide;
using sextant::test::build;
using sextant::test::func;
using sextant::test::load_from;

TEST_CASE("block indices are gathers along the loop, through an inline reduction's lets", "[dag]") {
    // An 8-point DCT along x, as jpeg_roundtrip writes it: `x % 8` appears twice, so the
    // inline reduction holds it in a let, and the index `x - x % 8 + r` reads `(x - t) + r`.
    ImageParam in(Float(32), 2, "in_blocks");
    Var x("x"), y("y"), k("k"), n("n");
    Func basis("basis"), dct("dct");
    basis(k, n) = cos(cast<float>((2 * n + 1) * k) * 0.19634954f);
    RDom r(0, 8, "r");
    dct(x, y) = sum(basis(x % 8, r) * in(clamp(x - x % 8 + r, 0, 1023), y));
    dct.set_estimate(x, 0, 1024).set_estimate(y, 0, 64);
    sextant::PipelineDag dag = build({dct});

    int sum_id = -1;
    for (const sextant::FuncNode &f : dag.funcs)
        if (f.name.rfind("sum", 0) == 0) sum_id = int(&f - dag.funcs.data());
    REQUIRE(sum_id >= 0);
    const sextant::Stage &update = dag.funcs[sum_id].stages[1];
    int xl = -1, rl = -1;
    for (size_t i = 0; i < update.loops.size(); i++) {
        if (update.loops[i].name == "x") xl = int(i);
        if (update.loops[i].name == "r$x") rl = int(i);
    }
    REQUIRE(xl >= 0);
    REQUIRE(rl >= 0);

    // basis(x % 8, r): the first index is a sawtooth in x (once its average slope over a
    // period, 0, made it a broadcast), the second moves with r alone.
    const sextant::Load &b = load_from(update, "basis", dag);
    CHECK_FALSE(b.at(0, xl).affine);
    CHECK(b.at(0, rl).affine);
    CHECK(b.at(0, rl).num == 0);
    CHECK(b.at(1, rl).num == 1);
    // in(x - x % 8 + r, y): a staircase in x (once slope 1 through the let: a dense load).
    const sextant::Load &i = load_from(update, "in_blocks_im", dag);
    CHECK_FALSE(i.at(0, xl).affine);
    CHECK(i.at(0, rl).affine);
    CHECK(i.at(0, rl).num == 1);
    CHECK_FALSE(i.data_dependent);
}

TEST_CASE("rational slopes stay affine and a let that loads makes the index data-dependent",
          "[dag]") {
    ImageParam in(Float(32), 2, "in_lets");
    Var x("x"), y("y");
    Func half("half"), offset("offset"), gather("gather");
    half(x, y) = in(x / 2, y) + in(x / 2 + 1, y);
    offset(x) = cast<int>(in(x, 0)) & 7;
    Expr o = clamp(offset(x), 0, 7);
    gather(x, y) = Internal::Let::make("o", o,
                                       half(x + Internal::Variable::make(Int(32), "o"), y) +
                                           half(x - Internal::Variable::make(Int(32), "o"), y));
    gather.set_estimate(x, 8, 256).set_estimate(y, 0, 16);
    sextant::PipelineDag dag = build({gather});

    const sextant::Load &halved = load_from(func(dag, "half").stages[0], "in_lets_im", dag);
    CHECK(halved.at(0, 0).affine);
    CHECK(halved.at(0, 0).num == 1);
    CHECK(halved.at(0, 0).den == 2);
    const sextant::Load &g = load_from(func(dag, "gather").stages[0], "half", dag);
    CHECK(g.data_dependent);
    CHECK_FALSE(g.at(0, 0).affine);
}
