// Reads streamed again: root producers a loop outside a realization reads again
// (Featurizer::streamed_times; docs/COSTMODEL.md, "Root reads streamed again"; memory_features'
// dram_bytes), and producers a loop of the stage's own nest reads again after touching more
// than a core's cache (Featurizer::reread_bytes; "Reads again inside a realization";
// total_bytes_read).
#include "Featurizer.h"

#include "StageLoads.h"
#include "StageView.h"

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

double Featurizer::reread_bytes(const Decisions &d, const Stage &s, const StageNest &sn,
                                const std::vector<int64_t> &key, const StageLoads &loads,
                                const std::vector<ProducerRegion> &whole) const {
    // Funcs computed inside the realization's loops that no load moves with stage loop
    // `loop` (the stage's own Func aside). Their first read finds them hot; a Root Func's
    // or an input's comes from further out every time, and charging its sweeps again ranked
    // the corpus worse (docs/COSTMODEL.md, "Reads again inside a realization").
    auto computed_at = [&](ProducerKind kind, int producer) {
        return kind == ProducerKind::Func && d[size_t(producer)].placement == Placement::At;
    };
    auto stays = [&](const EffLoad &l, int loop) {
        return !l.self && computed_at(l.kind, l.producer) && !l.depends_on(loop);
    };
    auto invariant = [&](ProducerKind kind, int producer, int loop) {
        if (!computed_at(kind, producer)) return false;
        bool any = false;
        for (const EffLoad &l : loads.loads) {
            if (l.self || l.kind != kind || l.producer != producer) continue;
            if (l.depends_on(loop)) return false;
            any = true;
        }
        return any;
    };
    auto loads_per_point = [&](ProducerKind kind, int producer) {
        double n = 0;
        for (const EffLoad &l : loads.loads)
            if (!l.self && l.kind == kind && l.producer == producer) n += l.count;
        return n;
    };
    if (std::none_of(loads.loads.begin(), loads.loads.end(),
                     [&](const EffLoad &e) { return !e.self && computed_at(e.kind, e.producer); }))
        return 0;
    const int own_bytes = dag_.funcs[size_t(s.func)].bytes_per_point;
    auto touched_bytes = [&](const Box64 &box, const std::vector<ProducerRegion> &regions, int loop,
                             double *again) {
        // What the iteration writes: its pure loops' points (an update's RVars write the
        // same points again).
        double touched = own_bytes;
        for (size_t i = 0; i < box.size(); i++)
            if (!s.loops[i].is_rvar) touched *= double(box[i].extent());
        const double points = double(box_volume(box));
        for (const ProducerRegion &pr : regions) {
            if (pr.kind == ProducerKind::Func && pr.producer == s.func) continue;
            // At most a cache line a load: a data-dependent index's footprint is the
            // producer's whole bounds, not what the iteration touches.
            const double bytes =
                std::min(double(box_volume(pr.region)) * producer_bytes(dag_, pr.kind, pr.producer),
                         points * loads_per_point(pr.kind, pr.producer) * kCacheLineBytes);
            touched += bytes;
            if (again && invariant(pr.kind, pr.producer, loop)) *again += bytes;
        }
        return touched;
    };
    // An iteration touches no more than the whole realization, and an inner loop's no more
    // than an outer one's.
    if (touched_bytes(sn.loop_box, whole, -1, nullptr) <= kPrivateCacheBytes) return 0;
    double extra = 0, iterations_outside = 1;
    for (int j = 0; j + 1 < int(sn.order.size()); j++) {
        const ConcreteLoop &l = sn.order[size_t(j)];
        const double outside = iterations_outside;
        iterations_outside *= double(l.extent);
        if (l.extent < 2) continue;
        // The cheap test first: does any load leave its producer put along this loop?
        if (std::none_of(loads.loads.begin(), loads.loads.end(),
                         [&](const EffLoad &e) { return stays(e, l.stage_loop); }))
            continue;
        double again = 0;
        const Box64 box = box_at_level(sn, j);
        if (touched_bytes(box, *footprints(key, d, s, box), l.stage_loop, &again) <=
            kPrivateCacheBytes)
            break;
        extra += double(l.extent - 1) * outside * again;
    }
    return extra;
}

} // namespace sextant
