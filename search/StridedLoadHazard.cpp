// The compute_at levels Halide 14 miscompiles for a downsampling consumer (docs/SEARCH.md,
// "Stack alignment on AVX-512"). Halide lowers a load with stride 2-4 along the vector to a
// dense load of 2-4 vectors and a shuffle (a select on the vector var's parity, as a Bayer
// demosaic makes, turns dense loads into such strided ones: Halide deinterleaves it). When the
// load's index is a constant (every loop between the producer's allocation and the load that moves
// the index is vectorized or unrolled), Halide 14 gives that dense load the native vector alignment
// whatever the constant is: `vmovaps` from 8 bytes past a 64-byte boundary on AVX-512, SIGSEGV,
// from a stack buffer and a heap one alike. A Func at root is no safer when its region and its
// consumer's are constants Halide sees (FuncNode::fixed_region): the consumer's ShiftInwards
// tail then reads it at constant indices too (random pipeline 104607, bench/experiments/
// sampler_crash_104607: `s5_downsample` over 373 points, 32 lanes, reading the 768-point
// `s3_reduce_max` at `ramp(683, 2, 32)`).
#include "search/LoopNest.h"
#include "search/SearchSpaceDetail.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sextant {
namespace {

/** Appends, for each load path from stage `st` to Func `target` (directly or through inlined
 * Funcs), how fast each of target's dimensions moves per step of one loop of the original
 * consumer; `dloop[i]` is that rate for loop i of `st`. Non-affine paths are skipped. With
 * `strides`, also the factor Halide's deinterleaving multiplies the path's stride along that
 * loop by: the largest `parity_mod` of a moving loop of a stage on the path (1 if none). */
void index_rates(const PipelineDag &dag, const Decisions &d, const Stage &st,
                 const std::vector<double> &dloop, int target,
                 std::vector<std::vector<double>> *out, int depth,
                 std::vector<int> *strides = nullptr, int stride = 1) {
    for (size_t i = 0; i < st.loops.size() && i < dloop.size(); i++)
        if (dloop[i] != 0) stride = std::max(stride, st.loops[i].parity_mod);
    for (const Load &L : st.loads) {
        if (L.kind != ProducerKind::Func || L.self || L.loop_dims != int(dloop.size())) continue;
        std::vector<double> dp(size_t(L.producer_dims), 0.0);
        bool affine = true;
        for (int p = 0; p < L.producer_dims && affine; p++) {
            for (int i = 0; i < L.loop_dims; i++) {
                if (dloop[size_t(i)] == 0) continue;
                const JacobianEntry &e = L.at(p, i);
                if (!e.affine || e.den == 0) {
                    affine = false;
                    break;
                }
                dp[size_t(p)] += dloop[size_t(i)] * double(e.num) / double(e.den);
            }
        }
        if (!affine) continue;
        if (L.producer == target) {
            out->push_back(dp);
            if (strides) strides->push_back(stride);
        } else if (depth < 16 && is_inlined(dag, d, L.producer) &&
                   !dag.funcs[L.producer].stages.empty()) {
            const Stage &qs = dag.funcs[L.producer].stages[0];
            std::vector<double> ql(qs.loops.size(), 0.0);
            for (size_t j = 0; j < qs.loops.size(); j++) {
                int fd = qs.loops[j].func_dim;
                if (fd >= 0 && fd < int(dp.size())) ql[j] = dp[size_t(fd)];
            }
            index_rates(dag, d, qs, ql, target, out, depth + 1, strides, stride);
        }
    }
}

/** Rates of `target`'s dimensions per step of loop `stage_loop` of stage `cs`, one per path
 * (with `strides`, each path's deinterleaving factor too: index_rates). */
std::vector<std::vector<double>> rates_along(const PipelineDag &dag, const Decisions &d,
                                             const Stage &cs, int stage_loop, int target,
                                             std::vector<int> *strides = nullptr) {
    std::vector<double> dloop(cs.loops.size(), 0.0);
    dloop[size_t(stage_loop)] = 1.0;
    std::vector<std::vector<double>> rates;
    index_rates(dag, d, cs, dloop, target, &rates, 0, strides);
    return rates;
}

/** True if a loop whose rates are `rates` moves the index of some load of `paths`: a path the
 * loop moves in a non-affine way is left out of the rates, and moves it too. */
bool moves_index(const std::vector<std::vector<double>> &rates, size_t paths) {
    if (rates.size() < paths) return true;
    for (const std::vector<double> &r : rates)
        for (double v : r)
            if (v != 0) return true;
    return false;
}

} // namespace

namespace detail {

/** True if computing `func` at `level` of stage `stage` of `c` (-1: outside all of its loops)
 * leaves a load with stride 2-4 along `c`'s vector from `func`'s buffer with a constant index
 * somewhere: in the loop body itself, when no serial loop inside `level` moves the index (only
 * the vector lanes and unrolled copies of the body do: sextant-fuzz's reproducer, and the
 * crash autotuning hit on a 10-level interpolation pyramid), or in the last, ShiftInwards, tile
 * of a serial loop over the vector dimension (random pipeline seed 186). */
bool strided_load_hazard(const PipelineDag &dag, const State &s, int func, int c, int stage,
                         int level) {
    const StageNest &cn = s.nests[c]->stages[size_t(stage)];
    if (cn.order.empty() || !cn.order.back().vectorized || cn.vector_width <= 1) return false;
    const ConcreteLoop &vl = cn.order.back();
    // The loop structure first (no Jacobians; this runs for every candidate level): the
    // vector loop steps vector_width x unroll points at a time, and more points than that
    // leave a serial loop over the vector dimension (Halide's outer part of vectorize).
    const Box64 box = box_at_level(cn, level);
    const int64_t points = box[size_t(vl.stage_loop)].extent();
    const int64_t step = int64_t(cn.vector_width) * std::max(1, cn.unroll);
    bool serial_vector_loop = points > step;
    bool tail = points % step != 0;
    std::vector<int> other_serial; // serial loops over other dimensions, inside `level`
    for (int j = level + 1; j < int(cn.order.size()); j++) {
        const ConcreteLoop &l = cn.order[size_t(j)];
        // A loop of one iteration moves nothing: Halide drops it (random pipeline 200549: a
        // z loop of extent 1 was taken to keep a stride-2 tail load's index variable).
        if (l.vectorized || l.unrolled || l.extent <= 1) continue;
        if (l.stage_loop == vl.stage_loop) {
            // The outer part of the vector dimension's split: its last tile is shifted
            // inwards to a constant start.
            serial_vector_loop = true;
            tail |= l.span > 0 && points % l.span != 0;
        } else {
            other_serial.push_back(l.stage_loop);
        }
    }
    if (serial_vector_loop && !tail) return false;
    const Stage &cs = dag.stage(c, stage);
    bool strided = false;
    std::vector<int> strides;
    const std::vector<std::vector<double>> rates =
        rates_along(dag, s.decisions, cs, vl.stage_loop, func, &strides);
    for (size_t path = 0; path < rates.size(); path++) {
        const std::vector<double> &r = rates[path];
        if (r.empty()) continue;
        // A select on the vector var's parity deinterleaves: a dense load becomes strided.
        const double a = std::abs(r[0]) * strides[path];
        bool this_one = a >= 2 && a <= 4 && a == std::floor(a);
        for (size_t k = 1; k < r.size(); k++)
            this_one &= r[k] == 0;
        strided |= this_one;
    }
    if (!strided) return false;
    if (other_serial.empty()) return true;
    // Load paths from c to func (with no loop moving, every path counts).
    std::vector<std::vector<double>> all;
    index_rates(dag, s.decisions, cs, std::vector<double>(cs.loops.size(), 0.0), func, &all, 0);
    // A serial loop over another dimension that moves the index keeps it a variable, with a
    // modulus Halide reads right.
    for (int stage_loop : other_serial)
        if (moves_index(rates_along(dag, s.decisions, cs, stage_loop, func), all.size()))
            return false;
    return true;
}

int root_strided_load_hazard(const PipelineDag &dag, const State &s, int func) {
    if (!dag.funcs[size_t(func)].fixed_region) return -1;
    for (const StageRef &r : effective_consumers(dag, s.decisions, func)) {
        // Only a consumer at root over a constant range has constant indices in its tail; one
        // inside another Func's loops starts where they are.
        if (s.decisions[size_t(r.first)].placement != Placement::Root || !s.nests[r.first])
            continue;
        const StageNest &cn = s.nests[r.first]->stages[size_t(r.second)];
        if (cn.order.empty() || !cn.order.back().vectorized) continue;
        const LoopDim &l = dag.stage(r.first, r.second).loops[size_t(cn.order.back().stage_loop)];
        if (l.is_rvar ? !l.fixed_range : !dag.funcs[size_t(r.first)].fixed_region) continue;
        if (strided_load_hazard(dag, s, func, r.first, r.second, -1)) return r.first;
    }
    return -1;
}

bool strands_fixed_producer(const PipelineDag &dag, const State &s, int func) {
    const FuncNode &f = dag.funcs[size_t(func)];
    if (!f.fixed_region) return false;
    for (const Stage &st : f.stages)
        for (int e : st.edges_in) {
            const Edge &edge = dag.edges[size_t(e)];
            if (edge.kind != ProducerKind::Func || edge.producer == func) continue;
            const FuncNode &q = dag.funcs[size_t(edge.producer)];
            if (!q.can_inline && q.fixed_region &&
                strided_load_hazard(dag, s, q.id, func, st.index, -1))
                return true;
        }
    return false;
}

int first_strided_load_hazard(const PipelineDag &dag, const State &s) {
    for (const FuncNode &f : dag.funcs) {
        const FuncSched &g = s.decisions[size_t(f.id)];
        if (g.placement == Placement::Root && root_strided_load_hazard(dag, s, f.id) >= 0)
            return f.id;
        if (g.placement != Placement::At) continue;
        bool hazard = strided_load_hazard(dag, s, f.id, g.at_func, g.at_stage, g.at_level);
        for (const StageRef &r : effective_consumers(dag, s.decisions, f.id))
            if (r.first != g.at_func)
                hazard = hazard || strided_load_hazard(dag, s, f.id, r.first, r.second, -1);
        if (hazard) return f.id;
    }
    return -1;
}

} // namespace detail
} // namespace sextant
