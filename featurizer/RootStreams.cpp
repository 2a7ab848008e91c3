// Featurizer::streamed_times: root producers a loop outside a realization reads again
// (docs/COSTMODEL.md, "Root reads streamed again"; memory_features' dram_bytes).
#include "Featurizer.h"

#include "StageLoads.h"

namespace sextant {

double Featurizer::streamed_times(const Decisions &d, const Nests &nests, int func, const Stage &s,
                                  const std::vector<int64_t> &key, const StageLoads &loads,
                                  ProducerKind kind, int producer, int bytes_per_point,
                                  double cache_bytes) const {
    // The loops of the Func's anchor stage around its realization that leave the producer's
    // footprint where it was (shifting one of them by an iteration reads the same part
    // again): each iteration streams that part anew when it is more than the cache.
    const FuncSched &fs = d[size_t(func)];
    if (fs.placement != Placement::At) return 1.0;
    const StageNest &an = nests[size_t(fs.at_func)]->stages[size_t(fs.at_stage)];
    auto footprint = [&](int level, const Box64 &box) {
        const Box64 region = region_in_box(dag_, d, func, fs.at_func, fs.at_stage, level, box);
        const Box64 *fp =
            find_region(*footprints(key, d, s, stage_loop_box(s, region)), kind, producer);
        return fp ? *fp : Box64();
    };
    // The cheap test first, from the Jacobians: the anchor stage's loop may leave the producer
    // put only if every dimension of this Func it moves is one this stage's loads of the
    // producer do not move with (bench local_laplacian's `k`: `gray` has none). Anchors that
    // read the Func only through Funcs nested in them keep the old price.
    const Stage &as = dag_.stage(fs.at_func, fs.at_stage);
    auto may_stay = [&](int stage_loop) {
        bool direct = false;
        for (const Load &ld : as.loads) {
            if (ld.kind != ProducerKind::Func || ld.producer != func) continue;
            direct = true;
            for (int p = 0; p < ld.producer_dims; p++) {
                const JacobianEntry &e = ld.at(p, stage_loop);
                if (e.affine && e.num == 0) continue;
                for (size_t i = 0; i < s.loops.size(); i++)
                    if (s.loops[i].func_dim == p)
                        for (const EffLoad &el : loads.loads)
                            if (!el.self && el.kind == kind && el.producer == producer &&
                                el.depends_on(int(i)))
                                return false;
            }
        }
        return direct;
    };
    double times = 1;
    for (int j = 0; j <= fs.at_level && j < int(an.order.size()); j++) {
        const ConcreteLoop &l = an.order[size_t(j)];
        if (l.extent < 2 || !may_stay(l.stage_loop)) continue;
        const Box64 first = box_at_level(an, j);
        Box64 next = first;
        next[size_t(l.stage_loop)].min += l.span;
        next[size_t(l.stage_loop)].max += l.span;
        const Box64 a = footprint(j, first);
        if (a.empty() || !(a == footprint(j, next))) continue;
        if (double(box_volume(a)) * bytes_per_point > cache_bytes) times *= double(l.extent);
    }
    return times;
}

} // namespace sextant
