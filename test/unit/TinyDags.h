// Tiny hand-built PipelineDags for layer 1-4 tests (no Halide needed).
#pragma once

#include "dag/PipelineDag.h"
#include "search/Schedule.h"
#include "search/State.h"

#include <functional>
#include <utility>

namespace sextant::test {

/** Model-free evaluator for search tests: a state costs `root` per Func computed at root,
 * `at` per Func computed at a loop and `inlined` per Func inlined (undecided Funcs cost
 * nothing). Deterministic; counts its calls. */
class PlacementPrices : public StateEvaluator {
public:
    PlacementPrices(double root, double at, double inlined)
        : root_(root), at_(at), inlined_(inlined) {}
    void evaluate(const std::vector<State *> &states) override {
        calls++;
        for (State *s : states) {
            s->cost = 0;
            for (const FuncSched &f : s->decisions)
                s->cost += f.placement == Placement::Root     ? root_
                           : f.placement == Placement::At     ? at_
                           : f.placement == Placement::Inline ? inlined_
                                                              : 0.0;
            s->dirty.clear();
        }
    }
    int calls = 0;

private:
    double root_, at_, inlined_;
};

/** Evaluator for search tests: each state costs what `cost` says of it. */
class CostOf : public StateEvaluator {
public:
    explicit CostOf(std::function<double(const State &)> cost) : cost_(std::move(cost)) {}
    void evaluate(const std::vector<State *> &states) override {
        for (State *s : states) {
            s->cost = cost_(*s);
            s->dirty.clear();
        }
    }

private:
    std::function<double(const State &)> cost_;
};

/** A stage schedule: per-loop tilings, vector width and parallel loop count. */
inline StageSched sched(std::vector<LoopTiling> loops, int vw, int par) {
    StageSched s;
    s.loops = std::move(loops);
    s.vector_width = vw;
    s.parallel = par;
    return s;
}

inline LoopDim pure_loop(const std::string &n, int dim, int64_t lo, int64_t hi) {
    LoopDim l;
    l.name = n;
    l.func_dim = dim;
    l.range = {lo, hi};
    l.parallel_safe = true;
    return l;
}

inline Load simple_load(ProducerKind kind, int producer, int count, int dims,
                        std::vector<JacobianEntry> jac) {
    Load l;
    l.kind = kind;
    l.producer = producer;
    l.count = count;
    l.producer_dims = dims;
    l.loop_dims = int(jac.size()) / dims;
    l.jacobian = std::move(jac);
    return l;
}

/** Edge whose footprint in dim d is [loop_min(d) + lo[d], loop_max(d) + hi[d]]. */
inline Edge offset_edge(int consumer, int stage, ProducerKind kind, int producer,
                        std::vector<int64_t> lo, std::vector<int64_t> hi, int calls) {
    Edge e;
    e.consumer_func = consumer;
    e.consumer_stage = stage;
    e.kind = kind;
    e.producer = producer;
    e.calls = calls;
    for (size_t d = 0; d < lo.size(); d++) {
        e.min.push_back(BoundExpr::binary(BoundExpr::Op::Add, BoundExpr::loop_min(int(d)),
                                          BoundExpr::constant(lo[d])));
        e.max.push_back(BoundExpr::binary(BoundExpr::Op::Add, BoundExpr::loop_max(int(d)),
                                          BoundExpr::constant(hi[d])));
    }
    return e;
}

inline FuncNode func(int id, const std::string &name, Box64 bounds) {
    FuncNode f;
    f.id = id;
    f.name = name;
    for (size_t d = 0; d < bounds.size(); d++)
        f.dims.push_back(d == 0 ? "x" : d == 1 ? "y" : "c");
    f.value_types = {TypeClass::F32};
    f.bytes_per_point = 4;
    f.bounds = bounds;
    return f;
}

/** Stage 0 of Func `func`, named `name`, over `loops` (its ops and loads left to the caller). */
inline Stage pure_stage(int func, const std::string &name, std::vector<LoopDim> loops) {
    Stage s;
    s.func = func;
    s.name = name;
    s.loops = std::move(loops);
    return s;
}

/** An AVX2 machine (8 f32 lanes) with a 1 MiB last-level cache. */
inline MachineInfo avx2_machine(int parallelism) {
    MachineInfo m;
    m.parallelism = parallelism;
    m.vector_bits = 256;
    m.last_level_cache_bytes = 1 << 20;
    return m;
}

/** Input 0, "in", f32, over `bounds`. */
inline InputNode input(Box64 bounds) {
    InputNode in;
    in.id = 0;
    in.name = "in";
    in.type = TypeClass::F32;
    in.dims = int(bounds.size());
    in.bounds = std::move(bounds);
    return in;
}

/** in (input, f32) -> P(x) = in(x) * 2 -> C(x) = P(x-1) + P(x) + P(x+1); C is the output,
 * estimated over [0, 63]. 4 cores, AVX2 (8 f32 lanes), 1 MiB last-level cache. */
inline PipelineDag stencil_1d() {
    PipelineDag dag;
    dag.machine = avx2_machine(4);
    dag.inputs.push_back(input({{-1, 64}}));

    FuncNode p = func(0, "P", {{-1, 64}});
    p.can_inline = true;
    Stage ps = pure_stage(0, "P", {pure_loop("x", 0, -1, 64)});
    ps.ops.at(OpKind::Mul, TypeClass::F32) = 1;
    ps.ops.at(OpKind::InputLoad, TypeClass::F32) = 1;
    ps.loads = {simple_load(ProducerKind::Input, 0, 1, 1, {{1, 1, true}})};
    p.stages.push_back(ps);
    dag.funcs.push_back(p);

    FuncNode c = func(1, "C", {{0, 63}});
    c.is_output = true;
    Stage cs = pure_stage(1, "C", {pure_loop("x", 0, 0, 63)});
    cs.ops.at(OpKind::Add, TypeClass::F32) = 2;
    cs.ops.at(OpKind::FuncLoad, TypeClass::F32) = 3;
    cs.loads = {simple_load(ProducerKind::Func, 0, 3, 1, {{1, 1, true}})};
    c.stages.push_back(cs);
    dag.funcs.push_back(c);
    dag.outputs = {1};

    dag.edges.push_back(offset_edge(0, 0, ProducerKind::Input, 0, {0}, {0}, 1));
    dag.edges.push_back(offset_edge(1, 0, ProducerKind::Func, 0, {-1}, {1}, 3));
    dag.link();
    return dag;
}

/** in -> P(x, y) = in(x, y) * 2 -> C(x, y) = P(x, y-1) + P(x, y) + P(x, y+1); C over
 * [0, 63] x [0, 31]. 2 cores, AVX2, 1 MiB cache. */
inline PipelineDag stencil_2d() {
    PipelineDag dag;
    dag.machine = avx2_machine(2);
    dag.inputs.push_back(input({{0, 63}, {-1, 32}}));
    FuncNode p = func(0, "P", {{0, 63}, {-1, 32}});
    p.can_inline = true;
    Stage ps = pure_stage(0, "P", {pure_loop("x", 0, 0, 63), pure_loop("y", 1, -1, 32)});
    ps.ops.at(OpKind::Mul, TypeClass::F32) = 1;
    ps.loads = {simple_load(ProducerKind::Input, 0, 1, 2,
                            {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
    p.stages.push_back(ps);
    dag.funcs.push_back(p);
    FuncNode c = func(1, "C", {{0, 63}, {0, 31}});
    c.is_output = true;
    Stage cs = pure_stage(1, "C", {pure_loop("x", 0, 0, 63), pure_loop("y", 1, 0, 31)});
    cs.ops.at(OpKind::Add, TypeClass::F32) = 2;
    cs.loads = {simple_load(ProducerKind::Func, 0, 3, 2,
                            {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
    c.stages.push_back(cs);
    dag.funcs.push_back(c);
    dag.outputs = {1};
    dag.edges.push_back(offset_edge(0, 0, ProducerKind::Input, 0, {0, 0}, {0, 0}, 1));
    dag.edges.push_back(offset_edge(1, 0, ProducerKind::Func, 0, {0, -1}, {0, 1}, 3));
    dag.link();
    return dag;
}

/** stencil_2d with P reading the input through a boundary condition: two clamps on each
 * index, `likely` or not. */
inline PipelineDag stencil_2d_clamped(bool likely = true) {
    PipelineDag dag = stencil_2d();
    Load &l = dag.funcs[0].stages[0].loads[0];
    l.clamps = {2, 2};
    l.likely = {likely, likely};
    return dag;
}

/** in -> F(x, y, c) = in(x, y, c) * 2, the output over X x Y x C points (x innermost).
 * 2 cores, AVX2, 1 MiB cache. */
inline PipelineDag scale_3d(int64_t X, int64_t Y, int64_t C) {
    PipelineDag dag;
    dag.machine = avx2_machine(2);
    const Box64 b = {{0, X - 1}, {0, Y - 1}, {0, C - 1}};
    dag.inputs.push_back(input(b));
    FuncNode f = func(0, "F", b);
    f.is_output = true;
    Stage s = pure_stage(
        0, "F",
        {pure_loop("x", 0, 0, X - 1), pure_loop("y", 1, 0, Y - 1), pure_loop("c", 2, 0, C - 1)});
    s.ops.at(OpKind::Mul, TypeClass::F32) = 1;
    s.ops.at(OpKind::InputLoad, TypeClass::F32) = 1;
    std::vector<JacobianEntry> identity;
    for (int d = 0; d < 3; d++)
        for (int l = 0; l < 3; l++)
            identity.push_back({d == l ? 1 : 0, 1, true});
    s.loads = {simple_load(ProducerKind::Input, 0, 1, 3, identity)};
    f.stages.push_back(s);
    dag.funcs.push_back(f);
    dag.outputs = {0};
    dag.edges.push_back(offset_edge(0, 0, ProducerKind::Input, 0, {0, 0, 0}, {0, 0, 0}, 1));
    dag.link();
    return dag;
}

/** A load of scale_3d's stage like its first but of channel 2 whatever `c` is (a premultiplied
 * image's alpha, `in(x, y, 2)`): appended by the caller to make F(x, y, c) = in(x, y, c) *
 * in(x, y, 2). */
inline Load channel_2_load(const Stage &s) {
    Load alpha = s.loads[0];
    for (int l = 0; l < 3; l++)
        alpha.jacobian[size_t(2 * 3 + l)] = {0, 1, true}; // no c
    return alpha;
}

/** in (f32) -> D(x) = in(stride * x), the output over [0, 63]. 1 core, AVX2, 1 MiB cache. */
inline PipelineDag strided_read(int64_t stride) {
    PipelineDag dag;
    dag.machine = avx2_machine(1);
    dag.inputs.push_back(input({{0, 64 * stride - 1}}));
    FuncNode f = func(0, "D", {{0, 63}});
    f.is_output = true;
    Stage s = pure_stage(0, "D", {pure_loop("x", 0, 0, 63)});
    s.ops.at(OpKind::InputLoad, TypeClass::F32) = 1;
    s.loads = {simple_load(ProducerKind::Input, 0, 1, 1, {{stride, 1, true}})};
    f.stages.push_back(s);
    dag.funcs.push_back(f);
    dag.outputs = {0};
    // D needs in[stride * x_min, stride * x_max].
    Edge e = offset_edge(0, 0, ProducerKind::Input, 0, {0}, {0}, 1);
    const BoundExpr k = BoundExpr::constant(stride);
    e.min = {BoundExpr::binary(BoundExpr::Op::Mul, BoundExpr::loop_min(0), k)};
    e.max = {BoundExpr::binary(BoundExpr::Op::Mul, BoundExpr::loop_max(0), k)};
    dag.edges.push_back(e);
    dag.link();
    return dag;
}

/** A 2-D chain with a transpose and a reduction:
 *   T(x, y) = in(y, x)                      (transpose, bounds 128 x 64)
 *   S(x) = 0; S(x) += T(x, r), r in [0, 64) (a reduction over y)
 * S is the output over [0, X - 1] (X = 128 unless given). */
inline PipelineDag transpose_reduce(int64_t X = 128) {
    PipelineDag dag;
    dag.machine = avx2_machine(2);
    dag.inputs.push_back(input({{0, 63}, {0, X - 1}}));

    FuncNode t = func(0, "T", {{0, X - 1}, {0, 63}});
    t.can_inline = true;
    Stage ts = pure_stage(0, "T", {pure_loop("x", 0, 0, X - 1), pure_loop("y", 1, 0, 63)});
    ts.loads = {simple_load(ProducerKind::Input, 0, 1, 2,
                            {{0, 1, true}, {1, 1, true}, {1, 1, true}, {0, 1, true}})};
    t.stages.push_back(ts);
    dag.funcs.push_back(t);

    FuncNode s = func(1, "S", {{0, X - 1}});
    s.is_output = true;
    Stage s0 = pure_stage(1, "S", {pure_loop("x", 0, 0, X - 1)});
    Stage s1;
    s1.func = 1;
    s1.index = 1;
    s1.name = "S.update(0)";
    LoopDim r;
    r.name = "r";
    r.is_rvar = true;
    r.range = {0, 63};
    s1.loops = {r, pure_loop("x", 0, 0, X - 1)};
    s1.ops.at(OpKind::Add, TypeClass::F32) = 1;
    Load self = simple_load(ProducerKind::Func, 1, 1, 1, {{0, 1, true}, {1, 1, true}});
    self.self = true;
    s1.loads = {simple_load(ProducerKind::Func, 0, 1, 2,
                            {{0, 1, true}, {1, 1, true}, {1, 1, true}, {0, 1, true}}),
                self};
    s.stages = {s0, s1};
    dag.funcs.push_back(s);
    dag.outputs = {1};

    // T needs in(y, x): producer dim 0 from loop 1 (y), dim 1 from loop 0 (x).
    Edge e;
    e.consumer_func = 0;
    e.consumer_stage = 0;
    e.kind = ProducerKind::Input;
    e.producer = 0;
    e.calls = 1;
    e.min = {BoundExpr::loop_min(1), BoundExpr::loop_min(0)};
    e.max = {BoundExpr::loop_max(1), BoundExpr::loop_max(0)};
    dag.edges.push_back(e);
    // S.update needs T(x, r): loop 0 is r, loop 1 is x.
    Edge f;
    f.consumer_func = 1;
    f.consumer_stage = 1;
    f.kind = ProducerKind::Func;
    f.producer = 0;
    f.calls = 1;
    f.min = {BoundExpr::loop_min(1), BoundExpr::loop_min(0)};
    f.max = {BoundExpr::loop_max(1), BoundExpr::loop_max(0)};
    dag.edges.push_back(f);
    dag.link();
    return dag;
}

/** transpose_reduce plus an output O(x) = S(x), so that S can be computed per tile of O. */
inline PipelineDag transpose_reduce_with_output(int64_t X = 128) {
    PipelineDag dag = transpose_reduce(X);
    dag.funcs[1].is_output = false;
    FuncNode o = func(2, "O", {{0, X - 1}});
    o.is_output = true;
    Stage os = pure_stage(2, "O", {pure_loop("x", 0, 0, X - 1)});
    os.loads = {simple_load(ProducerKind::Func, 1, 1, 1, {{1, 1, true}})};
    o.stages.push_back(os);
    dag.funcs.push_back(o);
    dag.outputs = {2};
    dag.edges.push_back(offset_edge(2, 0, ProducerKind::Func, 1, {0}, {0}, 1));
    dag.link();
    return dag;
}

/** in -> P0 -> P1 -> ... -> P{n-1} -> C, each a 9-tap 1-D stencil of the one before (8 adds,
 * 9 loads: 17 IR nodes); C over [0, 63]. */
inline PipelineDag stencil_chain(int n) {
    PipelineDag dag;
    dag.machine = avx2_machine(2);
    const int64_t lo = -4 * (n + 1), hi = 63 + 4 * (n + 1);
    dag.inputs.push_back(input({{lo, hi}}));
    for (int k = 0; k <= n; k++) {
        bool out = k == n;
        FuncNode f = func(k, out ? "C" : "P" + std::to_string(k), {{out ? 0 : lo, out ? 63 : hi}});
        f.can_inline = !out;
        f.is_output = out;
        Stage s = pure_stage(k, f.name, {pure_loop("x", 0, f.bounds[0].min, f.bounds[0].max)});
        s.ops.at(OpKind::Add, TypeClass::F32) = 8;
        ProducerKind kind = k == 0 ? ProducerKind::Input : ProducerKind::Func;
        s.ops.at(k == 0 ? OpKind::InputLoad : OpKind::FuncLoad, TypeClass::F32) = 9;
        s.loads = {simple_load(kind, k == 0 ? 0 : k - 1, 9, 1, {{1, 1, true}})};
        f.stages.push_back(s);
        dag.funcs.push_back(f);
        dag.edges.push_back(offset_edge(k, 0, kind, k == 0 ? 0 : k - 1, {-4}, {4}, 9));
    }
    dag.outputs = {n};
    dag.link();
    return dag;
}

} // namespace sextant::test
