// DagBuilder on tiny pipelines of distinct shapes: stage/edge counts, bounds, Jacobians, ops.
#include "DagHelpers.h"
#include "halide/DagBuilder.h"
#include "search/SearchSpace.h"
#include "search/Tails.h"

#include <catch2/catch.hpp>

using namespace Halide;
using sextant::Box64;
using sextant::Interval64;
using sextant::OpKind;
using sextant::PipelineDag;
using sextant::TypeClass;
using sextant::test::build;
using sextant::test::func;
using sextant::test::load_from;

namespace {

Box64 box(std::initializer_list<std::pair<int64_t, int64_t>> b) {
    Box64 r;
    for (auto &p : b)
        r.push_back({p.first, p.second});
    return r;
}

} // namespace

TEST_CASE("pointwise chain", "[dag]") {
    ImageParam in(UInt(8), 2, "in0");
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = in(x, y) * 2;
    g(x, y) = cast<uint16_t>(f(x, y)) + 1;
    g.set_estimate(x, 0, 100).set_estimate(y, 0, 50);
    PipelineDag dag = build({g});
    // ImageParam calls go through Halide's wrapper Func "in0_im", which the DAG keeps.
    REQUIRE(dag.funcs.size() == 3);
    CHECK(dag.funcs[0].name == "in0_im");
    CHECK(dag.funcs[0].is_input_wrapper);
    CHECK(dag.funcs[1].name == "f"); // realization order: producers first
    CHECK(dag.edges.size() == 3);
    CHECK(func(dag, "f").bounds == box({{0, 99}, {0, 49}}));
    CHECK(dag.inputs.at(0).bounds == box({{0, 99}, {0, 49}}));
    CHECK(func(dag, "f").can_inline);
    CHECK_FALSE(func(dag, "g").can_inline);
    const sextant::Stage &gs = func(dag, "g").stages[0];
    CHECK(gs.ops.at(OpKind::Add, TypeClass::U16) == 1);
    CHECK(gs.ops.at(OpKind::Cast, TypeClass::U16) == 0); // a widening load (next test)
    CHECK(gs.ops.at(OpKind::FuncLoad, TypeClass::U8) == 1);
    CHECK(func(dag, "f").stages[0].ops.at(OpKind::Mul, TypeClass::U8) == 1);
    CHECK(func(dag, "f").consumers == std::vector<int>{dag.find_func("g")});
}

TEST_CASE("a widening cast of a load costs no arithmetic, other casts do", "[dag]") {
    // x86 loads and widens in one instruction (vpmovzxwd zmm, [mem]): u32(in(x)) is the load.
    // A cast of arithmetic, a narrowing one or one to float is an instruction of its own.
    ImageParam in(UInt(16), 1, "in_widen");
    Var x("x");
    Func f("widen");
    f(x) = cast<uint32_t>(in(x)) + cast<uint32_t>(in(x + 1) + 1) +
           cast<uint32_t>(cast<uint8_t>(in(x + 2))) + cast<uint32_t>(cast<float>(in(x + 3)));
    f.set_estimate(x, 0, 100);
    PipelineDag dag = build({f});
    const sextant::Stage &s = func(dag, "widen").stages[0];
    // u32(in(x + 1) + 1), u8(in(x + 2)) and its u32, f32(in(x + 3)) and its u32.
    CHECK(s.ops.at(OpKind::Cast, TypeClass::U32) == 3);
    CHECK(s.ops.at(OpKind::Cast, TypeClass::U8) == 1);
    CHECK(s.ops.at(OpKind::Cast, TypeClass::F32) == 1);
    CHECK(s.ops.at(OpKind::FuncLoad, TypeClass::U16) == 4);
}

TEST_CASE("math library calls: transcendental vs single-instruction", "[dag]") {
    // sin, exp, pow expand to a polynomial (or a libm call); sqrt and floor are one instruction.
    // The op histogram keeps them apart and ops_per_point weighs them (op_kind_cost).
    ImageParam in(Float(32), 1, "in_trig");
    Var x("x");
    Func f("trig");
    f(x) = sin(in(x)) + exp(in(x)) * pow(in(x), 2.5f) + sqrt(in(x)) + floor(in(x));
    f.set_estimate(x, 0, 100);
    PipelineDag dag = build({f});
    const sextant::Stage &s = func(dag, "trig").stages[0];
    CHECK(s.ops.at(OpKind::Transcendental, TypeClass::F32) == 3);
    CHECK(s.ops.at(OpKind::Math, TypeClass::F32) == 2);
    CHECK(sextant::op_kind_cost(OpKind::Transcendental) > 10 * sextant::op_kind_cost(OpKind::Add));
    CHECK(sextant::op_kind_cost(OpKind::FuncLoad) == 0);
}

TEST_CASE("separable stencil", "[dag]") {
    ImageParam in(Float(32), 2, "in1");
    Var x("x"), y("y");
    Func bx("bx"), by("by");
    bx(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    by(x, y) = bx(x, y - 1) + bx(x, y) + bx(x, y + 1);
    by.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
    PipelineDag dag = build({by});
    CHECK(dag.funcs.size() == 3);
    CHECK(dag.edges.size() == 3);
    CHECK(func(dag, "bx").bounds == box({{0, 63}, {-1, 32}}));
    CHECK(dag.inputs[0].bounds == box({{-1, 64}, {-1, 32}}));
    const sextant::Stage &s = func(dag, "bx").stages[0];
    REQUIRE(s.loads.size() == 1); // three loads with the same Jacobian merge
    CHECK(s.loads[0].count == 3);
    CHECK(s.loads[0].at(0, 0).num == 1);
    CHECK(s.loads[0].at(0, 1).num == 0);
    CHECK(s.loads[0].at(1, 1).num == 1);
    CHECK(s.ops.at(OpKind::Add, TypeClass::F32) == 2);
    CHECK(s.ops.at(OpKind::FuncLoad, TypeClass::F32) == 3);
    CHECK(func(dag, "in1_im").stages[0].ops.at(OpKind::InputLoad, TypeClass::F32) == 1);
    // Footprint of a tile of by: x in [8, 15], y in [4, 7] needs bx rows 3..8.
    const sextant::Edge &e = dag.edges[func(dag, "by").stages[0].edges_in[0]];
    Box64 r;
    e.required(box({{8, 15}, {4, 7}}), &r);
    CHECK(r == box({{8, 15}, {3, 8}}));
}

TEST_CASE("downsample and upsample", "[dag]") {
    ImageParam in(Int(16), 2, "in2");
    Var x("x"), y("y");
    Func down("down"), up("up");
    down(x, y) = in(2 * x, y) + in(2 * x + 1, y);
    up(x, y) = down(x / 2, y);
    up.set_estimate(x, 0, 64).set_estimate(y, 0, 8);
    PipelineDag dag = build({up});
    CHECK(func(dag, "down").bounds == box({{0, 31}, {0, 7}}));
    CHECK(dag.inputs[0].bounds == box({{0, 63}, {0, 7}}));
    const sextant::Load &l = load_from(func(dag, "up").stages[0], "down", dag);
    CHECK(l.at(0, 0).num == 1);
    CHECK(l.at(0, 0).den == 2);
    const sextant::Load &d = load_from(func(dag, "down").stages[0], "in2_im", dag);
    CHECK(d.at(0, 0).num == 2);
    CHECK(d.count == 2);
}

TEST_CASE("a coarse grid read at float coordinates has a per-tile footprint", "[dag]") {
    // A bilateral-grid slice: the cell under pixel x is floor((x + 0.5) / 64 - 0.5) in float.
    // Its footprint follows the tile (it used to fall back to the whole grid for every tile).
    ImageParam in(Float(32), 2, "in_grid");
    Var x("x"), y("y");
    Func grid("coarse"), slice("slice");
    grid(x, y) = in(x, y) * 2.0f;
    Expr gx = (cast<float>(x) + 0.5f) * (1.0f / 64) - 0.5f;
    Expr gy = (cast<float>(y) + 0.5f) / 3.0f;
    Expr x0 = cast<int>(floor(gx)), y0 = cast<int>(round(gy));
    slice(x, y) = grid(x0, y0) + grid(x0 + 1, y0);
    slice.set_estimate(x, 0, 1536).set_estimate(y, 0, 96);
    PipelineDag dag = build({slice});
    CHECK(func(dag, "coarse").bounds == box({{-1, 24}, {0, 32}}));
    const sextant::Edge &e = dag.edges[func(dag, "slice").stages[0].edges_in[0]];
    Box64 r;
    e.required(box({{64, 127}, {30, 35}}), &r); // cells 0.5..1.48; rows 10.17..11.83
    CHECK(r == box({{0, 2}, {10, 12}}));
    e.required(box({{0, 31}, {0, 0}}), &r); // left of the first cell centre: cell -1
    CHECK(r == box({{-1, 0}, {0, 0}}));
}

TEST_CASE("RDom reduction", "[dag]") {
    ImageParam in(Float(32), 2, "in3");
    Var x("x");
    RDom r(0, 10, "r");
    Func s("s");
    s(x) = 0.f;
    s(x) += in(x, r);
    s.set_estimate(x, 0, 128);
    PipelineDag dag = build({s});
    const sextant::FuncNode &f = func(dag, "s");
    REQUIRE(f.stages.size() == 2);
    const sextant::Stage &u = f.stages[1];
    REQUIRE(u.loops.size() == 2);
    CHECK(u.loops[0].is_rvar);
    CHECK(u.loops[0].range == Interval64{0, 9});
    CHECK(u.loops[1].name == "x");
    CHECK(u.loops[1].parallel_safe);
    CHECK(u.points() == 1280);
    CHECK(dag.inputs[0].bounds == box({{0, 127}, {0, 9}}));
    CHECK(load_from(u, "s", dag).self);
    CHECK_FALSE(f.can_inline);
}

TEST_CASE("histogram scatter", "[dag]") {
    ImageParam in(UInt(8), 2, "in4");
    Var i("i"), x("x"), y("y");
    Func hist("hist"), bright("bright");
    bright(x, y) = in(x, y) / 2;
    RDom r(0, 64, 0, 32, "r");
    hist(i) = 0;
    hist(clamp(cast<int>(bright(r.x, r.y)), 0, 127)) += 1;
    hist.set_estimate(i, 0, 128);
    PipelineDag dag = build({hist});
    const sextant::FuncNode &h = func(dag, "hist");
    REQUIRE(h.stages.size() == 2);
    CHECK(h.stages[1].loops.size() == 2);
    CHECK(func(dag, "bright").bounds == box({{0, 63}, {0, 31}}));
    CHECK(h.bounds == box({{0, 127}}));
    // The scatter update has no pure loop to parallelize, but Halide can factor it.
    for (const sextant::LoopDim &l : h.stages[1].loops)
        CHECK_FALSE(l.parallel_safe);
    CHECK(h.stages[1].can_rfactor);
    CHECK_FALSE(h.stages[0].can_rfactor);
}

TEST_CASE("which updates Halide can factor", "[dag]") {
    ImageParam in(Float(32), 2, "in_rf");
    Var x("x"), i("i");
    RDom r(0, 64, 0, 32, "r");
    Func sum("rf_sum"), scan("rf_scan"), biggest("rf_max"), bounded("rf_where"), tri("rf_tri"),
        out("rf_out");
    sum(x) = 0.f;
    sum(x) += in(x, r.y); // associative and commutative: yes
    biggest() = -1e30f;
    biggest() = max(biggest(), in(r.x, r.y)); // yes
    RDom k(1, 63, "k");
    scan(i) = in(i, 0);
    scan(k) = scan(k - 1) + in(k, 1); // a scan reads another point of itself: no
    RDom w(0, 64, 0, 32, "w");
    w.where(w.x < w.y + 8);
    bounded() = 0.f;
    bounded() += in(w.x, w.y); // a where clause: no
    RDom t(0, 32, 0, 32, "t");
    tri() = 0.f;
    tri() += in(t.x, t.y) * in(t.y, t.x);
    out(x) = sum(x) + biggest() + scan(x) + bounded() + tri();
    out.set_estimate(x, 0, 64);
    PipelineDag dag = build({out});
    CHECK(func(dag, "rf_sum").stages[1].can_rfactor);
    CHECK(func(dag, "rf_max").stages[1].can_rfactor);
    CHECK_FALSE(func(dag, "rf_scan").stages[1].can_rfactor);
    CHECK_FALSE(func(dag, "rf_where").stages[1].can_rfactor);
    CHECK(func(dag, "rf_tri").stages[1].can_rfactor);
}

TEST_CASE("a splat's pure vars stay parallel-safe when they also pick the bin", "[dag]") {
    // bilateral_grid's splat: grid(x, y, bin(x, y), c) += ... writes a different cell for
    // every (x, y, c) whatever the bin, so x, y and c may be vectorized or parallelized (Halide
    // treats them as the update's pure vars).
    ImageParam in(Float(32), 2, "in_splat");
    Var x("x"), y("y"), z("z"), c("c");
    RDom r(0, 4, 0, 4, "r");
    Func grid("grid");
    Expr v = in(x * 4 + r.x, y * 4 + r.y);
    Expr bin = clamp(cast<int>(v * 8.0f), 0, 7);
    grid(x, y, z, c) = 0.0f;
    grid(x, y, bin, c) += select(c == 0, v, 1.0f);
    grid.set_estimates({{0, 64}, {0, 48}, {0, 8}, {0, 2}});
    PipelineDag dag = build({grid});
    const sextant::Stage &splat = func(dag, "grid").stages.at(1);
    int pure = 0;
    for (const sextant::LoopDim &l : splat.loops) {
        if (l.is_rvar) {
            CHECK_FALSE(l.parallel_safe);
        } else {
            CHECK(l.parallel_safe);
            pure++;
        }
    }
    CHECK(pure == 3); // x, y, c: the bin's place is no loop
}

TEST_CASE("a scatter index clamped around a value Halide cannot fold is still bounded", "[dag]") {
    // bin's value bounds are [floor_f64(-8), floor_f64(8)], which Halide 14's simplifier does
    // not fold; the clamp around the index still bounds the region written (random pipeline
    // 109 failed with "Cannot bound the region written").
    ImageParam in(Float(64), 1, "in4d");
    Var i("i"), x("x");
    Func hist("hist_d"), bin("bin_d");
    bin(x) = floor(clamp(in(x), Expr(-8.0), Expr(8.0)));
    RDom r(0, 64, "r");
    hist(i) = 0;
    hist(clamp(cast<int>(bin(r.x)) + 8, 0, 15)) += 1;
    hist.set_estimate(i, 0, 16);
    PipelineDag dag = build({hist});
    CHECK(func(dag, "hist_d").bounds == box({{0, 15}}));
}

TEST_CASE("two outputs", "[dag]") {
    ImageParam in(Float(32), 1, "in5");
    Var x("x");
    Func common("common"), a("a"), b("b");
    common(x) = in(x)*2.f;
    a(x) = common(x) + 1.f;
    b(x) = common(x + 10);
    a.set_estimate(x, 0, 100);
    b.set_estimate(x, 0, 50);
    PipelineDag dag = build({a, b});
    CHECK(dag.outputs.size() == 2);
    CHECK(func(dag, "common").bounds == box({{0, 99}}));
    CHECK(func(dag, "common").consumers.size() == 2);
}

TEST_CASE("Tuple Func", "[dag]") {
    ImageParam in(Float(32), 2, "in6");
    Var x("x"), y("y");
    Func t("t"), o("o");
    t(x, y) = Tuple(in(x, y), cast<int32_t>(in(x, y + 1)));
    o(x, y) = t(x, y)[0] + cast<float>(t(x, y)[1]);
    o.set_estimate(x, 0, 16).set_estimate(y, 0, 16);
    PipelineDag dag = build({o});
    const sextant::FuncNode &f = func(dag, "t");
    CHECK(f.value_types.size() == 2);
    CHECK(f.bytes_per_point == 8);
    CHECK(dag.inputs[0].bounds == box({{0, 15}, {0, 16}}));
}

TEST_CASE("boundary condition uses input estimates", "[dag]") {
    ImageParam in(UInt(16), 2, "in7");
    in.set_estimates({{0, 40}, {0, 30}});
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func blur("blur");
    blur(x, y) = clamped(x - 2, y) + clamped(x + 2, y);
    blur.set_estimate(x, 0, 40).set_estimate(y, 0, 30);
    PipelineDag dag = build({blur});
    // in_im -> lambda_0 (the clamp) -> repeat_edge -> blur
    CHECK(dag.funcs.size() == 4);
    CHECK(func(dag, "repeat_edge").bounds == box({{-2, 41}, {0, 29}}));
    CHECK(func(dag, "in7_im").bounds == box({{0, 39}, {0, 29}}));
    CHECK(dag.inputs[0].bounds == box({{0, 39}, {0, 29}}));
    // The clamp reads the input densely in the interior (Halide's loop partitioning drops it
    // there), so its Jacobian is the identity, not "non-affine" (a gather).
    const sextant::FuncNode &edge = func(dag, "lambda_0");
    REQUIRE(edge.stages[0].loads.size() == 1);
    const sextant::Load &l = edge.stages[0].loads[0];
    CHECK(l.at(0, 0).affine);
    CHECK(l.at(0, 0).num == 1);
    CHECK(l.at(0, 0).den == 1);
    CHECK(l.at(1, 1).num == 1);
    CHECK(l.at(0, 1).num == 0);
    // Work per point: the address arithmetic (x - 2, the clamp's min + extent - 1) is not
    // counted, nor are the clamps: they are the load's, priced by the featurizer per loop
    // (free in a partitioned loop's steady state, hoisted out of loops they do not move with).
    CHECK(func(dag, "repeat_edge").stages[0].ops.of_kind(OpKind::MinMax) +
              edge.stages[0].ops.of_kind(OpKind::MinMax) ==
          0);
    CHECK(l.clamps.empty());
    const sextant::Stage &re = func(dag, "repeat_edge").stages[0];
    REQUIRE(re.loads.size() == 1);
    CHECK(re.loads[0].clamps == std::vector<int>{2, 2});
    CHECK(re.loads[0].likely == std::vector<bool>{true, true});
    CHECK(edge.stages[0].ops.of_kind(OpKind::Add) == 0);
    CHECK(edge.stages[0].ops.of_kind(OpKind::Sub) == 0);
    CHECK(func(dag, "blur").stages[0].ops.of_kind(OpKind::Add) == 1);
    // lambda_0 is a pure copy of the input's wrapper: a wrapper too, always inlined (computed
    // at a tile and split at the image's edge it read the input before its start).
    CHECK(func(dag, "in7_im").is_input_wrapper);
    CHECK(edge.is_input_wrapper);
    CHECK_FALSE(func(dag, "repeat_edge").is_input_wrapper);
}

TEST_CASE("a Func reading its input other than as a copy is no wrapper", "[dag]") {
    ImageParam in(Float(32), 2, "in_t");
    Var x("x"), y("y");
    Func flipped("flipped"), scaled("scaled"), out("out_t");
    flipped(x, y) = in(y, x);
    scaled(x, y) = in(x, y) * 2.0f;
    out(x, y) = flipped(x, y) + scaled(x, y);
    out.set_estimate(x, 0, 16).set_estimate(y, 0, 16);
    PipelineDag dag = build({out});
    CHECK(func(dag, "in_t_im").is_input_wrapper);
    CHECK_FALSE(func(dag, "flipped").is_input_wrapper);
    CHECK_FALSE(func(dag, "scaled").is_input_wrapper);
}

TEST_CASE("a clamp of a computed index is work per point, a plain one is the load's", "[dag]") {
    ImageParam in(Float(32), 1, "in9");
    ImageParam lut(Float(32), 1, "lut9");
    Var x("x");
    Func f("looked_up");
    f(x) = in(clamp(x * 2, 0, 99)) + lut(clamp(cast<int>(in(x)*16.0f) + 1, 0, 19));
    f.set_estimate(x, 0, 50);
    in.set_estimates({{0, 100}});
    lut.set_estimates({{0, 20}});
    PipelineDag dag = build({f});
    const sextant::Stage &s = func(dag, "looked_up").stages[0];
    // The computed index's clamp is work; the plain one is the load's index clamp (no
    // `likely`: the featurizer prices it in every iteration of the loops it moves with).
    CHECK(s.ops.of_kind(OpKind::MinMax) == 2);
    const sextant::Load *plain = nullptr;
    for (const sextant::Load &l : s.loads)
        if (!l.data_dependent && l.producer_dims == 1 && !l.clamps.empty()) // in9's wrapper
            plain = &l;
    REQUIRE(plain);
    CHECK(plain->clamps == std::vector<int>{2});
    CHECK(plain->likely == std::vector<bool>{false});
    CHECK(s.ops.of_kind(OpKind::Mul) == 1); // in(x) * 16 (x * 2 is address arithmetic)
    CHECK(s.ops.of_kind(OpKind::Add) == 2); // the sum, and + 1 to a loaded index
}

TEST_CASE("a mirrored boundary reads densely in the interior and its wrap is the load's clamp",
          "[dag]") {
    // mirror_image indexes with select(outside, wrapped coordinate, clamp(likely(x), ...)):
    // Halide's loop partitioning keeps only the likely branch in a loop's steady state, so the
    // access is x itself (unit stride) and the wrap (%, abs, compares, the select) is the
    // load's likely index clamp, not work per point of the stage.
    ImageParam in(Float(32), 2, "in_mirror");
    Var x("x"), y("y");
    Func m = BoundaryConditions::mirror_image(in);
    Func out("mirrored_blur");
    out(x, y) = m(x - 1, y) + m(x + 1, y);
    out.set_estimate(x, 0, 64).set_estimate(y, 0, 64);
    in.set_estimates({{0, 64}, {0, 64}});
    PipelineDag dag = build({out});
    const sextant::FuncNode *mf = nullptr;
    for (const sextant::FuncNode &f : dag.funcs)
        if (f.name.find("mirror_image") != std::string::npos) mf = &f;
    REQUIRE(mf);
    const sextant::Stage &s = mf->stages[0];
    REQUIRE(s.loads.size() == 1);
    const sextant::Load &l = s.loads[0];
    CHECK(l.likely == std::vector<bool>{true, true});
    REQUIRE(l.clamps.size() == 2);
    CHECK(l.clamps[0] >= 6); // the select, its condition and the wrap: several instructions
    CHECK(l.at(0, 0).affine);
    CHECK(l.at(0, 0).num == 1); // d(index 0)/dx = 1
    CHECK(l.at(0, 0).den == 1);
    CHECK(s.ops.of_kind(OpKind::Select) == 0);
    CHECK(s.ops.of_kind(OpKind::Mod) == 0);
    CHECK(s.ops.of_kind(OpKind::Compare) == 0);
}

TEST_CASE("a select on a var's parity marks that loop", "[dag]") {
    // A Bayer demosaic picks a phase with x % 2 and y % 2: Halide deinterleaves a select on
    // the vector var's parity, so the search treats loads along it as strided.
    ImageParam in(UInt(16), 2, "in_bayer");
    in.set_estimates({{0, 64}, {0, 64}});
    Var x("x"), y("y");
    Func g("bayer_g");
    g(x, y) = select((x % 2) == (y % 2), in(x, y), (in(x - 1, y) + in(x + 1, y)) / 2);
    g.set_estimate(x, 1, 62).set_estimate(y, 0, 64);
    Func plain("plain_copy");
    plain(x, y) = g(x, y) + cast<uint16_t>(x % 8);
    plain.set_estimate(x, 1, 62).set_estimate(y, 0, 64);
    PipelineDag dag = build({plain});
    const sextant::Stage &s = func(dag, "bayer_g").stages[0];
    REQUIRE(s.loops.size() == 2);
    CHECK(s.loops[0].parity_mod == 2);
    CHECK(s.loops[1].parity_mod == 2);
    // x % 8 is no deinterleave Halide makes of a 2-4 stride.
    CHECK(func(dag, "plain_copy").stages[0].loops[0].parity_mod == 0);
}

TEST_CASE("missing output estimate names the Func and dimension", "[dag][errors]") {
    ImageParam in(Float(32), 2, "in8");
    Var x("x"), y("y");
    Func out("out");
    out(x, y) = in(x, y);
    out.set_estimate(x, 0, 10);
    try {
        build({out});
        FAIL("expected a UserError");
    } catch (const sextant::UserError &e) {
        std::string msg = e.what();
        CHECK(msg.find("Output Func 'out'") != std::string::npos);
        CHECK(msg.find("dimension 1 ('y')") != std::string::npos);
        CHECK(msg.find("set_estimate") != std::string::npos);
    }
}

TEST_CASE("missing Param estimate is named when bounds need it", "[dag][errors]") {
    ImageParam in(Float(32), 1, "in9");
    Param<int> offset("offset");
    Var x("x");
    Func out("out"), p("p");
    p(x) = in(x)*2.f;
    out(x) = p(x + offset);
    out.set_estimate(x, 0, 10);
    CHECK_THROWS_WITH(build({out}), Catch::Contains("Param 'offset' has no estimate"));
    offset.set_estimate(3);
    PipelineDag dag = build({out});
    CHECK(func(dag, "p").bounds == box({{3, 12}}));
}

TEST_CASE("a Func read unclamped from its input and through a consumer's clamp stays out of "
          "the consumer's loops",
          "[dag]") {
    // gray reads the input as is; the boundary condition clamps reads of gray, 20 pixels past
    // each edge. Inside the consumer's loops gray's region shrinks to one pixel at the edge,
    // and a shifted vector or split tile reads the input before its start.
    ImageParam in(Float(32), 1, "in_s");
    in.set_estimates({{0, 64}});
    Var x("x");
    Func gray("gray_s"), blur("blur_s");
    gray(x) = in(x)*2.0f;
    Func padded = BoundaryConditions::repeat_edge(gray, {{0, 64}});
    blur(x) = padded(x - 20) + padded(x + 20);
    blur.set_estimate(x, 0, 64);
    PipelineDag dag = build({blur});
    const int g = dag.find_func("gray_s");
    REQUIRE(g >= 0);
    CHECK(sextant::shrinks_at_edges(dag, g));
    CHECK_FALSE(sextant::shrinks_at_edges(dag, dag.find_func(padded.name())));
    sextant::SearchSpace space(dag);
    const std::string text = "sextant-schedule 1\n"
                             "func blur_s root\n"
                             "  stage 0 loops x:split16 vector 8 unroll 1 parallel 0\n"
                             "func " +
                             padded.name() +
                             " inline\n"
                             "func gray_s ";
    CHECK_NOTHROW(
        space.replay(text + "root\n  stage 0 loops x:inner vector 8 unroll 1 parallel 0\n"));
    CHECK_THROWS_WITH(
        space.replay(text + "at blur_s 0\n  stage 0 loops x:inner vector 8 unroll 1 parallel 0\n"),
        Catch::Contains("reads an input without clamping its index"));
    // A boundary condition on the input itself clamps the index of the Func that reads it.
    ImageParam in2(Float(32), 1, "in_s2");
    in2.set_estimates({{0, 64}});
    Func padded2 = BoundaryConditions::repeat_edge(in2);
    Func scaled("scaled_s"), blur2("blur_s2");
    scaled(x) = padded2(x) * 2.0f;
    blur2(x) = scaled(x - 20) + scaled(x + 20);
    blur2.set_estimate(x, 0, 64);
    PipelineDag dag2 = build({blur2});
    for (const sextant::FuncNode &f : dag2.funcs)
        CHECK_FALSE(sextant::shrinks_at_edges(dag2, f.id));
    // A Func that clamps its own index into the input (the random pipelines' input guards)
    // reads more of it when grown, but never outside the buffer, whatever its consumers'
    // boundary condition; here the pipeline reads 8 of the input's 357 columns.
    for (int kind = 0; kind < 4; kind++) {
        CAPTURE(kind);
        ImageParam in3(Float(32), 1, "in_s3");
        in3.set_estimates({{0, 357}});
        Func guard("guard_s3"), blur3("blur_s3");
        guard(x) = in3(clamp(x, 0, 356));
        const Halide::Region r = {{0, 8}};
        Func bc = kind == 0   ? BoundaryConditions::repeat_edge(guard, r)
                  : kind == 1 ? BoundaryConditions::constant_exterior(guard, 0.0f, r)
                  : kind == 2 ? BoundaryConditions::mirror_image(guard, r)
                              : BoundaryConditions::repeat_image(guard, r);
        blur3(x) = bc(x - 20) + bc(x + 20);
        blur3.set_estimate(x, 0, 8);
        PipelineDag dag3 = build({blur3});
        const int gf = dag3.find_func(guard.name());
        REQUIRE(gf >= 0);
        REQUIRE(dag3.inputs.size() == 1);
        CHECK(dag3.inputs[0].buffer == box({{0, 356}}));
        CHECK(dag3.inputs[0].bounds.back().max < 356);
        CHECK_FALSE(sextant::shrinks_at_edges(dag3, gf));
    }
}

TEST_CASE("an update masked along its vector var is offered one natural vector at most", "[dag]") {
    // Random pipeline 200832: `s9_reduce_max` (uint16) with a where clause on x, at 64 lanes,
    // took LLVM 85 s to compile; at 32 (the natural AVX-512 width) 1.1 s.
    ImageParam in(UInt(16), 2, "in_masked");
    Var x("x"), y("y");
    RDom r(0, 5, "r");
    r.where((r + x) % 3 != 0);
    RDom q(0, 5, "q");
    q.where(q % 3 != 0); // the same mask for every lane: no masked vectors
    Func masked("masked"), whole("whole"), out("out_masked");
    masked(x, y) = cast<uint16_t>(0);
    masked(x, y) = max(masked(x, y), in(x + r, y));
    whole(x, y) = cast<uint16_t>(0);
    whole(x, y) = max(whole(x, y), in(x + q, y));
    out(x, y) = masked(x, y) + whole(x, y);
    out.set_estimate(x, 0, 1024).set_estimate(y, 0, 64);
    in.set_estimates({{0, 1030}, {0, 64}});
    PipelineDag dag = build({out});
    const sextant::FuncNode &m = func(dag, "masked"), &w = func(dag, "whole");
    CHECK_FALSE(m.stages[0].masked_lanes);
    CHECK(m.stages[1].masked_lanes);
    CHECK_FALSE(w.stages[1].masked_lanes);
    sextant::SearchSpace space(dag);
    auto widest = [&](const sextant::Stage &s) {
        int most = 0;
        for (const sextant::StageSched &t : space.tilings(s, s.full_loop_box(), true, false))
            most = std::max(most, t.vector_width);
        return most;
    };
    const int natural = 256 / 8 / 2; // uint16 lanes of one AVX2 register
    CHECK(widest(w.stages[1]) == 2 * natural);
    CHECK(widest(m.stages[1]) == natural);
}
