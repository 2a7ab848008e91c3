// StageView: what the featurizer's parts share about one stage of one schedule (its nest, the
// points it computes, how its innermost loops run), and the feature groups computed in other
// files than Featurizer.cpp. Internal to featurizer/.
#pragma once

#include "StageLoads.h"
#include "featurizer/Featurizer.h"
#include "search/State.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace sextant {

inline int producer_bytes(const PipelineDag &dag, ProducerKind kind, int id) {
    return kind == ProducerKind::Func ? dag.funcs[id].bytes_per_point
                                      : type_class_bytes(dag.inputs[id].type);
}

inline const Box64 &producer_bounds(const PipelineDag &dag, ProducerKind kind, int id) {
    return kind == ProducerKind::Func ? dag.funcs[id].bounds : dag.inputs[id].bounds;
}

/** What the parts of schedule_features share about one stage of one schedule: its nest, how
 * many points it computes, and how its innermost loops run (vectors, an unrolled block). */
struct StageView {
    const PipelineDag &dag;
    const Decisions &d;
    const Nests &nests;
    int func, stage;
    const FuncNode &f;
    const Stage &s;
    const FuncNest &fn;
    const StageNest &sn;
    int K;  ///< the stage's loops
    int nl; ///< loops of its order
    double realizations, points, total;
    /** With a sliding window each point is computed once per storage realization: the
     * fraction of the nest's points that are computed (more than 1 where a split along the
     * sliding dimension rounds each step up: split_slide_rounding). */
    double slide = 1.0;
    int vw;
    /** Bytes of the widest type the stage's own operations use (OpHistogram, per stage). */
    int widest_type_bytes;
    int64_t inner_extent;
    /** A vector loop no longer than width x unroll is no loop at all but one block of
     * vectors, which accesses hoist past. */
    bool block;
    /** Hardware vectors per vector of `vw` lanes (vw may be a multiple of the natural width). */
    double pieces;
    /** An update's accumulator is promoted to registers when its whole realization is a small
     * constant-size buffer (computed in a tile): LLVM unrolls the short loops over it and
     * keeps it in registers across every RVar loop, whatever the order of pure and RVar loops
     * (matmul's 16x8 tile with k outermost: no load or store of the accumulator per k).
     * Budget: three quarters of the vector register file (16 registers; 32 with AVX-512). */
    bool accumulates_in_registers;

    StageView(const PipelineDag &dag_, const Decisions &d_, const Nests &nests_, int func_,
              int stage_, int widest_type_bytes_)
        : dag(dag_), d(d_), nests(nests_), func(func_), stage(stage_), f(dag.funcs[func]),
          s(f.stages[stage]), fn(*nests[func]), sn(fn.stages[stage]), K(int(s.loops.size())),
          nl(int(sn.order.size())), widest_type_bytes(widest_type_bytes_) {
        realizations = fn.realizations;
        points = double(box_volume(sn.loop_box));
        total = realizations * points;
        if (fn.sliding && total > 0) {
            double slid =
                fn.store_realizations * double(box_volume(stage_loop_box(s, fn.store_region)));
            // (The rounding may exceed the nest's own count, which does not round a window up.)
            slide = std::min(1.0, slid / total) *
                    split_slide_rounding(d[func].stages[size_t(stage_)], s, fn);
            total *= slide;
            points *= slide;
        } else {
            const double r = split_rounding(s, d[func].stages[size_t(stage_)], sn.loop_box);
            total *= r;
            points *= r;
        }
        vw = sn.vector_width;
        inner_extent = sn.order.empty() ? 1 : sn.order.back().extent;
        block = vw > 1 && nl > 0 && sn.order[nl - 1].extent <= int64_t(vw) * sn.unroll;
        pieces = vw > 1 ? std::ceil(double(vw) / dag.machine.natural_vector_lanes(f)) : 1.0;
        const MachineInfo &m = dag.machine;
        const double register_file_bytes =
            m.vector_bits / 8.0 * (m.vector_bits >= 512 ? 32 : 16) * 0.75;
        accumulates_in_registers = fn.stages.size() > 1 && d[func].placement == Placement::At &&
                                   fn.alloc_points * f.bytes_per_point <= register_file_bytes;
    }

    /** Hoisting: an access whose address does not change with the innermost loops of the
     * order is executed once per iteration of the innermost loop it depends on (LLVM hoists
     * it, or the unrolled copies share it). Executions of an access site (one per iteration of
     * the loops it depends on, times its copies in an unrolled block), given which stage loops
     * its address depends on. */
    double sites_of(const std::function<bool(int)> &depends_on, double count) const {
        double inner_iters = 1; // points covered by the inner loops the access is invariant in
        double copies = 1;      // distinct copies in an unrolled block
        // A loop unrolled inside the vectors (StageSched::unrolled_inside) is innermost, not
        // where the order has it: its copies share what does not move with it.
        const int inside = d[func].stages[size_t(stage)].unrolled_inside;
        if (inside >= 0 && !depends_on(inside)) inner_iters = double(sn.loop_box[inside].extent());
        auto moved = [&](int j) { return sn.order[size_t(j)].stage_loop == inside; };
        int j = nl - 1;
        if (block) {
            inner_iters *= double(sn.order[nl - 1].extent);
            // The unrolled loops just outside it are one block too.
            for (j = nl - 2; j >= 0 && sn.order[j].unrolled; j--) {
                inner_iters *= double(sn.order[j].extent);
                if (depends_on(sn.order[j].stage_loop)) copies *= double(sn.order[j].extent);
            }
        }
        for (; j >= 0; j--) {
            if (moved(j)) continue;
            if (depends_on(sn.order[j].stage_loop)) break;
            inner_iters *= double(sn.order[j].extent);
        }
        return total / std::max(1.0, inner_iters) * count * copies;
    }
};

inline void set(ScheduleRow &r, ScheduleFeature f, double v) {
    r[int(f)] = v;
}

/** Arithmetic per point (ops_per_point, total_ops), with the index clamps that stay in the
 * loops; returns the share of the stage's points where a clamp moving with the vector loop
 * stays in its body (AccessFeatures.cpp). */
double op_features(const StageView &v, const std::vector<IndexClamp> &clamps, double ops,
                   ScheduleRow &r);

/** Loads by kind and how often each executes, and the bytes stored (AccessFeatures.cpp). */
void access_features(const StageView &v, const std::vector<EffLoad> &loads, double inner_clamp_kept,
                     ScheduleRow &r);

} // namespace sextant
