// Reads streamed again: root producers a loop outside a realization reads again
// (Featurizer::streamed_times; docs/COSTMODEL.md, "Root reads streamed again"; memory_features'
// dram_bytes), and producers a loop of the stage's own nest reads again after touching more
// than a core's cache (Featurizer::reread_bytes; "Reads again inside a realization";
// total_bytes_read), and root producers a Func computed at the stage has just read over the same
// part (Featurizer::sibling_reads; "Read first by a Func computed inside"; memory_features).
#include "Featurizer.h"

#include "StageLoads.h"
#include "StageView.h"
#include "support/SmallVec.h"

#include <algorithm>

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
        // (Held: another thread may clear the footprints' cache.)
        const auto regions = footprints(key, d, s, stage_loop_box(s, region));
        const Box64 *fp = find_region(*regions, kind, producer);
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
    // What the stage reads of each producer (its own Func aside): loads a point and the loops
    // they move with, gathered once. Only a Func computed inside the realization's loops is
    // read again: its first read finds it hot; a Root Func's or an input's comes from further
    // out every time, and charging its sweeps again ranked the corpus worse (docs/COSTMODEL.md,
    // "Reads again inside a realization").
    struct Read {
        ProducerKind kind;
        int producer;
        double per_point = 0;
        LoopSet moves;
        bool computed_at = false;
    };
    SmallVec<Read, 16> reads;
    for (const EffLoad &l : loads.loads) {
        if (l.self) continue;
        auto r = std::find_if(reads.begin(), reads.end(), [&](const Read &x) {
            return x.kind == l.kind && x.producer == l.producer;
        });
        if (r == reads.end()) {
            reads.push_back({l.kind, l.producer, 0, {}, false});
            r = reads.end() - 1;
            r->computed_at =
                l.kind == ProducerKind::Func && d[size_t(l.producer)].placement == Placement::At;
        }
        r->per_point += l.count;
        for (size_t j = 0; j < s.loops.size(); j++)
            if (l.depends_on(int(j))) r->moves.set(j);
    }
    auto read_again = [](const Read &r, int loop) {
        return r.computed_at && !r.moves[size_t(loop)];
    };
    if (std::none_of(reads.begin(), reads.end(), [](const Read &r) { return r.computed_at; }))
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
            auto r = std::find_if(reads.begin(), reads.end(), [&](const Read &x) {
                return x.kind == pr.kind && x.producer == pr.producer;
            });
            if (r == reads.end()) continue; // the stage's own Func
            // At most a cache line a load: a data-dependent index's footprint is the
            // producer's whole bounds, not what the iteration touches.
            const double bytes =
                std::min(double(box_volume(pr.region)) * producer_bytes(dag_, pr.kind, pr.producer),
                         points * r->per_point * kCacheLineBytes);
            touched += bytes;
            if (again && read_again(*r, loop)) *again += bytes;
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
        if (std::none_of(reads.begin(), reads.end(),
                         [&](const Read &r) { return read_again(r, l.stage_loop); }))
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

SiblingReads Featurizer::sibling_reads(const Decisions &d, const Nests &nests, int func, int stage,
                                       const Stage &s, const StageNest &sn,
                                       const std::vector<int64_t> &key) const {
    // A Func computed at one of the stage's loops runs first in each iteration of that loop;
    // what it reads of a producer, where that holds what the stage reads there, the stage
    // finds in cache (bench unsharp_mask: `luma` per strip of `output` reads the input's
    // strip, then `output` reads it again). The regions are held: another thread may clear
    // the footprints' cache.
    SiblingReads out;
    thread_local std::vector<int64_t> sibling_key; // (`key` may be the caller's thread_local)
    for (size_t g = 0; g < dag_.funcs.size(); g++) {
        const FuncSched &gs = d[g];
        if (gs.placement != Placement::At || gs.at_func != func || gs.at_stage != stage ||
            !nests[g] || gs.at_level < 0 || gs.at_level >= int(sn.order.size()))
            continue;
        const Box64 box = box_at_level(sn, gs.at_level);
        const RegionsPtr own = footprints(key, d, s, box);
        const Box64 region = region_in_box(dag_, d, int(g), func, stage, gs.at_level, box);
        for (const Stage &gst : dag_.funcs[g].stages) {
            inline_key(d, gst, sibling_key);
            out.stage_and_sibling.emplace_back(
                own, footprints(sibling_key, d, gst, stage_loop_box(gst, region)));
        }
    }
    return out;
}

double SiblingReads::hot_part(ProducerKind kind, int producer, int bytes_per_point) const {
    double least = 0;
    for (const auto &[own, sibling] : stage_and_sibling) {
        const Box64 *mine = find_region(*own, kind, producer);
        const Box64 *theirs = find_region(*sibling, kind, producer);
        if (!mine || !theirs || box_volume(*mine) == 0 || theirs->size() != mine->size()) continue;
        bool holds = true;
        for (size_t i = 0; i < mine->size() && holds; i++)
            holds = (*theirs)[i].contains((*mine)[i]);
        if (!holds) continue;
        const double bytes = double(box_volume(*theirs)) * bytes_per_point;
        least = least == 0 ? bytes : std::min(least, bytes);
    }
    return least;
}

} // namespace sextant
