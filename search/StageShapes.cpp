// The stage shapes with rules of their own: a factored reduction (StageSched::rfactor) and a
// short loop unrolled inside the vectors (StageSched::unrolled_inside); declared in LoopNest.h.
#include "LoopNest.h"

#include <algorithm>
#include <string>

namespace sextant {

int outermost_rvar(const Stage &s) {
    int r = -1;
    for (int i = 0; i < int(s.loops.size()); i++)
        if (s.loops[size_t(i)].is_rvar) r = i;
    return r;
}

std::string rfactor_problem(const PipelineDag &dag, int func, int stage, const StageSched &ss) {
    const Stage &s = dag.stage(func, stage);
    if (!s.can_rfactor)
        return "stage " + s.name +
               " is not a reduction Halide can factor (a commutative, associative update "
               "over a rectangular RDom without a where clause)";
    for (const LoopDim &l : s.loops)
        if (!l.is_rvar && l.range.extent() > 1)
            return "stage " + s.name + " has a pure loop '" + l.name +
                   "', which can run in parallel without it";
    const int r = outermost_rvar(s);
    const LoopTiling &t = ss.loops[size_t(r)];
    if (t.mode != LoopMode::Split || t.band > 0 || t.tile >= s.loops[size_t(r)].range.extent())
        return "its outermost RVar '" + s.loops[size_t(r)].name +
               "' must be split into two or more bands (splitT)";
    for (int i = 0; i < int(s.loops.size()); i++)
        if (i != r && s.loops[size_t(i)].is_rvar && ss.loops[size_t(i)].mode != LoopMode::Middle)
            return "the other RVars must be 'middle'";
    if (ss.parallel != 1 || ss.vector_width != 1 || ss.unroll != 1 || ss.unroll_outer != 0)
        return "it takes 'vector 1 unroll 1 parallel 1' (one band per task)";
    return "";
}

namespace {

/** Why loop `loop` of `s` cannot be unrolled inside the vectors of `ss`, ignoring other Funcs;
 * its position in the nest's order in *pos. */
std::string unrolled_inside_own_problem(const Stage &s, const StageSched &ss, int loop, int *pos) {
    if (loop < 0 || loop >= int(s.loops.size())) return "no such loop";
    const LoopDim &l = s.loops[size_t(loop)];
    if (l.is_rvar) return "'" + l.name + "' is an RVar";
    if (ss.loops[size_t(loop)].mode != LoopMode::Inner)
        return "'" + l.name + "' must be whole in the inner group (inner)";
    const int64_t e = l.range.extent();
    if (e < 2 || e > kMaxUnrolledInside)
        return "'" + l.name + "' runs " + std::to_string(e) + " points; 2 to " +
               std::to_string(kMaxUnrolledInside) + " can be unrolled inside the vectors";
    if (ss.vector_width < 2) return "the stage is not vectorized";
    if (ss.unroll_outer > 0 || ss.rfactor) return "the stage has a register tile or rfactor";
    const StageNest n = make_stage_nest(s, ss, s.full_loop_box());
    *pos = -1;
    for (size_t i = 0; i < n.order.size(); i++)
        if (n.order[i].stage_loop == loop) *pos = int(i);
    if (*pos < 0 || *pos + 1 >= int(n.order.size())) return "'" + l.name + "' is the vector loop";
    if (*pos < ss.parallel) return "'" + l.name + "' is parallel";
    return "";
}

} // namespace

int unrolled_inside_loop(const Stage &s, const StageSched &ss) {
    int pos = -1;
    for (int i = int(s.loops.size()) - 1; i >= 0; i--)
        if (unrolled_inside_own_problem(s, ss, i, &pos).empty()) return i;
    return -1;
}

bool unrolled_inside_fits_registers(const Stage &s, const StageSched &ss, int loop,
                                    int vector_bits) {
    const int64_t lanes =
        int64_t(ss.vector_width) * std::max(1, ss.unroll) * s.loops[size_t(loop)].range.extent();
    return lanes * s.ops.widest_type_bytes() <=
           kUnrolledInsideRegisters * std::max(1, vector_bits / 8);
}

bool shares_gather(const Stage &s, int loop) {
    for (const Load &l : s.loads) {
        if (!l.data_dependent || l.self) continue;
        bool moves = false;
        for (int d = 0; d < l.producer_dims; d++)
            moves |= !(l.at(d, loop).affine && l.at(d, loop).num == 0);
        if (!moves) return true;
    }
    return false;
}

std::string unrolled_inside_problem(const PipelineDag &dag, const Decisions &d, int func, int stage,
                                    int loop) {
    const Stage &s = dag.stage(func, stage);
    int pos = -1;
    const std::string why =
        unrolled_inside_own_problem(s, d[size_t(func)].stages[size_t(stage)], loop, &pos);
    if (!why.empty()) return why;
    for (size_t g = 0; g < d.size(); g++) {
        const FuncSched &gs = d[g];
        if (gs.placement != Placement::At || gs.at_func != func || gs.at_stage != stage) continue;
        if (gs.at_level >= pos || gs.storage_level() >= pos)
            return "Func '" + dag.funcs[g].name + "' is computed or stored inside '" +
                   s.loops[size_t(loop)].name + "'";
    }
    return "";
}

StageProblem first_unrolled_inside_problem(const PipelineDag &dag, const Decisions &d) {
    for (size_t f = 0; f < d.size(); f++)
        for (size_t s = 0; s < d[f].stages.size(); s++) {
            const int l = d[f].stages[s].unrolled_inside;
            if (l < 0) continue;
            std::string why = unrolled_inside_problem(dag, d, int(f), int(s), l);
            if (!why.empty()) return {int(f), int(s), std::move(why)};
        }
    return {};
}

StageSched rfactor_tiling(const Stage &s, int bands) {
    StageSched ss;
    const int r = outermost_rvar(s);
    if (r < 0 || bands < 2) return ss;
    const int64_t e = s.loops[size_t(r)].range.extent();
    for (int i = 0; i < int(s.loops.size()); i++) {
        if (i == r)
            ss.loops.push_back({LoopMode::Split, (e + bands - 1) / bands, 0});
        else
            ss.loops.push_back({s.loops[size_t(i)].is_rvar ? LoopMode::Middle : LoopMode::Inner});
    }
    ss.parallel = 1;
    ss.rfactor = true;
    return ss;
}

} // namespace sextant
