#include "Tails.h"

#include "LoopNest.h"

#include <iterator>
#include <map>

namespace sextant {

namespace {

/** The region of every input (entries 0..inputs-1) and of every output Func (entry inputs +
 * func id) that `func` reads, directly or through its producers, when it is realized over
 * `region`; each producer realized over the union of what it is asked for. An output's buffer
 * is the user's, as fixed as an input's. */
std::vector<Box64> fixed_regions(const PipelineDag &dag, int func, const Box64 &region) {
    std::vector<Box64> out(dag.inputs.size() + dag.funcs.size());
    std::map<int, Box64> pending = {{func, region}};
    Box64 r;
    while (!pending.empty()) {
        // Producers have smaller ids: the largest pending id has heard from all its consumers.
        auto last = std::prev(pending.end());
        const int g = last->first;
        const Box64 need = std::move(last->second);
        pending.erase(last);
        for (const Stage &s : dag.funcs[size_t(g)].stages) {
            const Box64 loops = stage_loop_box(s, need);
            for (int e : s.edges_in) {
                const Edge &edge = dag.edges[size_t(e)];
                if (edge.kind == ProducerKind::Func && edge.producer == g) continue;
                edge.required(loops, &r);
                Box64 *acc;
                if (edge.kind == ProducerKind::Input) {
                    acc = &out[size_t(edge.producer)];
                } else if (dag.funcs[size_t(edge.producer)].is_output) {
                    acc = &out[dag.inputs.size() + size_t(edge.producer)];
                    for (size_t i = 0; i < r.size() && i < acc->size(); i++)
                        (*acc)[i].include(r[i]);
                    if (acc->empty()) *acc = r;
                    // Its own producers are read over its buffer, which does not grow.
                    continue;
                } else {
                    auto it = pending.find(edge.producer);
                    if (it == pending.end()) {
                        pending.emplace(edge.producer, r);
                        continue;
                    }
                    acc = &it->second;
                }
                if (acc->empty()) {
                    *acc = r;
                } else {
                    for (size_t i = 0; i < r.size() && i < acc->size(); i++)
                        (*acc)[i].include(r[i]);
                }
            }
        }
    }
    return out;
}

/** Whether realizing `func` over `grown` instead of `region` reads an input outside the buffer
 * the user passes (InputNode::buffer: its estimates), or more of an output Func. A Func that
 * clamps its own index to the image (the random pipelines' input guards) reads more of the
 * input when grown, but inside it. */
bool reads_past_buffers(const PipelineDag &dag, int func, const Box64 &region, const Box64 &grown) {
    const std::vector<Box64> before = fixed_regions(dag, func, region);
    const std::vector<Box64> after = fixed_regions(dag, func, grown);
    for (size_t i = 0; i < after.size(); i++) {
        if (after[i] == before[i]) continue;
        const bool input = i < dag.inputs.size() && !dag.inputs[i].buffer.empty();
        const Box64 &limit = input ? dag.inputs[i].buffer : before[i];
        if (limit.size() != after[i].size()) return true;
        for (size_t d = 0; d < after[i].size(); d++)
            if (!limit[d].contains(after[i][d])) return true;
    }
    return false;
}

/** FuncNode::fixed_region, given it for every consumer of `func` (they have larger ids). */
bool fixed_region(const PipelineDag &dag, const FuncNode &f) {
    if (f.is_output || f.edges_out.empty()) return false;
    for (int e : f.edges_out) {
        const Edge &edge = dag.edges[size_t(e)];
        if (edge.consumer_func == f.id) continue; // an update reading its own values
        const FuncNode &c = dag.funcs[size_t(edge.consumer_func)];
        const Stage &cs = c.stages[size_t(edge.consumer_stage)];
        auto fixed = [&](const BoundExpr &b) {
            for (const BoundExpr::Instr &in : b.code()) {
                if (in.op != BoundExpr::Op::LoopMin && in.op != BoundExpr::Op::LoopMax) continue;
                if (in.value < 0 || size_t(in.value) >= cs.loops.size()) return false;
                const LoopDim &l = cs.loops[size_t(in.value)];
                if (l.is_rvar ? !l.fixed_range : !c.fixed_region) return false;
            }
            return !b.empty();
        };
        for (size_t d = 0; d < edge.min.size(); d++)
            if (!fixed(edge.min[d]) || !fixed(edge.max[d])) return false;
    }
    return true;
}

} // namespace

void annotate_tails(PipelineDag &dag) {
    // Consumers have larger ids than their producers.
    for (size_t i = dag.funcs.size(); i-- > 0;)
        dag.funcs[i].fixed_region = fixed_region(dag, dag.funcs[i]);
    for (FuncNode &f : dag.funcs) {
        for (Stage &s : f.stages) {
            s.rounds_up.assign(s.loops.size(), 0);
            for (size_t l = 0; l < s.loops.size(); l++)
                s.rounds_up[l] = split_tail(dag, f.id, s.index, int(l)) == Tail::RoundUp;
        }
        f.read_through_clamp = read_through_moving_clamp(dag, f.id);
    }
}

bool growth_reads_inputs_outside(const PipelineDag &dag, int func, int dim) {
    const Box64 &bounds = dag.funcs[size_t(func)].bounds;
    if (dim < 0 || size_t(dim) >= bounds.size()) return true;
    Box64 grown = bounds;
    // Twice the region: a tile never adds more than the extent it splits.
    grown[size_t(dim)].max += bounds[size_t(dim)].extent();
    return fixed_regions(dag, func, bounds) != fixed_regions(dag, func, grown);
}

namespace {

/** Whether a load of `func` by one of its consumers clamps its index along `dim` and passes
 * `accept(load)`. */
template <typename Accept>
bool clamped_by_consumer(const PipelineDag &dag, int func, int dim, Accept accept) {
    for (int c : dag.funcs[size_t(func)].consumers)
        for (const Stage &st : dag.funcs[size_t(c)].stages)
            for (const Load &l : st.loads)
                if (l.kind == ProducerKind::Func && l.producer == func && l.clamps_at(dim) > 0 &&
                    accept(l))
                    return true;
    return false;
}

} // namespace

bool read_through_moving_clamp(const PipelineDag &dag, int func) {
    const FuncNode &f = dag.funcs[size_t(func)];
    for (size_t d = 0; d < f.bounds.size(); d++) {
        auto moves = [&](const Load &l) {
            if (l.data_dependent) return false; // a table lookup: the clamp's bounds, constant
            for (int k = 0; k < l.loop_dims; k++)
                if (!l.at(int(d), k).affine || l.at(int(d), k).num != 0) return true;
            return false;
        };
        if (clamped_by_consumer(dag, func, int(d), moves)) return true;
    }
    return false;
}

bool shrinks_at_edges(const PipelineDag &dag, int func) {
    const FuncNode &f = dag.funcs[size_t(func)];
    if (f.is_input_wrapper || f.is_output) return false;
    for (size_t d = 0; d < f.bounds.size(); d++) {
        if (!clamped_by_consumer(dag, func, int(d), [](const Load &) { return true; })) continue;
        // Grown on either side: a shifted tile goes below the region, a rounded one above.
        Box64 grown = f.bounds;
        grown[d].min -= f.bounds[d].extent();
        grown[d].max += f.bounds[d].extent();
        if (reads_past_buffers(dag, func, f.bounds, grown)) return true;
    }
    return false;
}

Tail split_tail(const PipelineDag &dag, int func, int stage, int loop) {
    if (stage == 0) return Tail::ShiftInwards;
    const FuncNode &f = dag.funcs[size_t(func)];
    const LoopDim &l = f.stages[size_t(stage)].loops[size_t(loop)];
    if (l.is_rvar || f.is_output || l.func_dim < 0) return Tail::GuardWithIf;
    return growth_reads_inputs_outside(dag, func, l.func_dim) ? Tail::GuardWithIf : Tail::RoundUp;
}

Box64 shifted_in_region(const PipelineDag &dag, const FuncSched &fs, int func, Box64 region) {
    const FuncNode &f = dag.funcs[size_t(func)];
    if (f.is_output || f.stages.empty() || fs.stages.empty()) return region;
    const Stage &s = f.stages[0];
    const StageSched &ss = fs.stages[0];
    for (size_t i = 0; i < s.loops.size() && i < ss.loops.size(); i++) {
        const LoopTiling &t = ss.loops[i];
        const int k = s.loops[i].func_dim;
        if (t.mode != LoopMode::Split || k < 0 || size_t(k) >= region.size()) continue;
        const int64_t step = std::max<int64_t>(1, t.band > 0 ? t.band : t.tile);
        Interval64 &r = region[size_t(k)];
        if (r.extent() > 0 && r.extent() < step) r.min = r.max - step + 1;
    }
    return region;
}

} // namespace sextant
