// Helpers shared by the placement and re-tiling tests of the search: a 2-D downsample
// pipeline and C (its consumer) at root with P's children after it.
#pragma once

#include "TinyDags.h"
#include "search/SearchSpace.h"

#include <initializer_list>
#include <utility>
#include <vector>

namespace sextant::test {

/** in -> P(x, y) = in(x, y) -> C(x, y) = P(s*x, s*y) + P(s*x + 1, s*y) + ... (a downsample
 * by s, or a plain 2-tap read for s = 1); C over [0, w-1] x [0, h-1]. AVX2: 8 f32 lanes. */
inline PipelineDag downsample_2d(int64_t w, int64_t s, int64_t h = 16) {
    PipelineDag dag;
    dag.machine = avx2_machine(2);
    Box64 pb = {{0, s * w}, {0, s * h}};
    dag.inputs.push_back(input(pb));
    FuncNode p = func(0, "P", pb);
    p.can_inline = true;
    Stage ps;
    ps.func = 0;
    ps.name = "P";
    ps.loops = {test::pure_loop("x", 0, 0, s * w), test::pure_loop("y", 1, 0, s * h)};
    ps.ops.at(OpKind::InputLoad, TypeClass::F32) = 1;
    ps.loads = {test::simple_load(ProducerKind::Input, 0, 1, 2,
                                  {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
    p.stages.push_back(ps);
    dag.funcs.push_back(p);
    FuncNode c = func(1, "C", {{0, w - 1}, {0, h - 1}});
    c.is_output = true;
    Stage cs;
    cs.func = 1;
    cs.name = "C";
    cs.loops = {test::pure_loop("x", 0, 0, w - 1), test::pure_loop("y", 1, 0, h - 1)};
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

/** C (Func 1) at root, tiled as `loops` with vector 8. */
inline FuncSched root_c(std::vector<LoopTiling> loops, int unroll = 1) {
    FuncSched c;
    c.placement = Placement::Root;
    StageSched s;
    s.loops = std::move(loops);
    s.vector_width = 8;
    s.unroll = unroll;
    c.stages = {s};
    return c;
}
/** Every child of the state that decides the first Funcs of the search order as `decided`. */
inline std::vector<StatePtr> children_after(const SearchSpace &space,
                                            std::initializer_list<FuncSched> decided,
                                            const SearchSpaceOptions &opt = {}) {
    StatePtr s = space.initial_state();
    for (const FuncSched &fs : decided)
        s = space.make_child(*s, fs);
    std::vector<StatePtr> kids;
    space.children(*s, opt, &kids);
    return kids;
}

} // namespace sextant::test
