// Regions of Funcs (search/LoopNest.h): what a consumer's loops require of a producer through
// its inlined chain, and the region a Func computed at a loop of another needs per iteration
// (at the first, middle or last iteration of the loops around it), whether it slides.
#include "LoopNest.h"
#include "Tails.h"

#include "support/Errors.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace sextant {

namespace {

/** Calls `reach(edge, box)` with the region `box` of the producer of every edge `target`
 * accepts that `consumer` iterating over `loop_box` reads, looking through the inlined Funcs
 * `target` does not accept. Inlined Funcs get the union of
 * what all their (inlined) consumers need, then pass it on once: the Funcs are in realization
 * order (producers have smaller ids), so taking the largest pending id first sees every
 * contribution to it. Walking each path separately instead is exponential in the depth of a
 * diamond-shaped inlined graph (F_k reading F_k-1 and F_k-2). */
template <typename Target, typename Reach>
void walk_required(const PipelineDag &dag, const Decisions &d, StageRef consumer,
                   const Box64 &loop_box, Target target, Reach reach) {
    struct Pending {
        int func;
        Box64 region; // so far
    };
    std::vector<Pending> pending; // by id
    Box64 r;
    auto visit = [&](const Stage &s, const Box64 &box) {
        for (int e : s.edges_in) {
            const Edge &edge = dag.edges[e];
            const bool inlined = edge.kind == ProducerKind::Func && !target(edge) &&
                                 is_inlined(dag, d, edge.producer);
            if (!inlined) {
                if (target(edge)) {
                    edge.required(box, &r);
                    reach(edge, r);
                }
                continue;
            }
            edge.required(box, &r);
            SEXTANT_ASSERT(edge.producer < s.func || s.func == edge.producer,
                           "Funcs are not in realization order");
            auto it = std::lower_bound(pending.begin(), pending.end(), edge.producer,
                                       [](const Pending &p, int id) { return p.func < id; });
            if (it == pending.end() || it->func != edge.producer) {
                pending.insert(it, {edge.producer, r});
            } else {
                for (size_t i = 0; i < r.size(); i++)
                    it->region[i].include(r[i]);
            }
        }
    };
    visit(dag.stage(consumer.first, consumer.second), loop_box);
    while (!pending.empty()) {
        Pending p = std::move(pending.back());
        pending.pop_back();
        const Stage &inner = dag.stage(p.func, 0);
        visit(inner, stage_loop_box(inner, p.region));
    }
}

void include_box(Box64 *acc, const Box64 &r) {
    if (acc->size() < r.size()) acc->resize(r.size());
    for (size_t i = 0; i < r.size(); i++)
        (*acc)[i].include(r[i]);
}

} // namespace

void required_region(const PipelineDag &dag, const Decisions &d, StageRef consumer,
                     const Box64 &loop_box, ProducerKind kind, int target, Box64 *acc) {
    auto is_target = [&](const Edge &e) { return e.kind == kind && e.producer == target; };
    walk_required(dag, d, consumer, loop_box, is_target,
                  [&](const Edge &, const Box64 &r) { include_box(acc, r); });
}

std::vector<ProducerRegion> required_regions(const PipelineDag &dag, const Decisions &d,
                                             StageRef consumer, const Box64 &loop_box) {
    std::vector<ProducerRegion> out;
    walk_required(
        dag, d, consumer, loop_box,
        [&](const Edge &e) {
            return e.kind == ProducerKind::Input || !is_inlined(dag, d, e.producer);
        },
        [&](const Edge &e, const Box64 &r) {
            auto it = std::find_if(out.begin(), out.end(), [&](const ProducerRegion &p) {
                return p.kind == e.kind && p.producer == e.producer;
            });
            if (it == out.end()) {
                out.push_back({e.kind, e.producer, r});
            } else {
                include_box(&it->region, r);
            }
        });
    return out;
}

const Box64 *find_region(const std::vector<ProducerRegion> &regions, ProducerKind kind,
                         int producer) {
    for (const ProducerRegion &p : regions)
        if (p.kind == kind && p.producer == producer) return &p.region;
    return nullptr;
}

Box64 box_at_level(const StageNest &consumer, int level, bool middle) {
    return box_at_level(consumer, level, middle, consumer.loop_box);
}

Box64 box_at_level(const StageNest &consumer, int level, bool middle, Box64 b) {
    for (int j = 0; j <= level && j < int(consumer.order.size()); j++) {
        const ConcreteLoop &l = consumer.order[j];
        Interval64 &i = b[l.stage_loop];
        if (middle) {
            const int64_t iterations = (i.extent() + l.span - 1) / l.span;
            i.min += (iterations - 1) / 2 * l.span;
        }
        i.max = std::min(i.max, i.min + l.span - 1);
    }
    return b;
}

namespace {

/** region_at for one iteration of `level` whose loop box is `box` (each Func's region
 * remembered in `memo`); `allocated` as region_at's, without `func`'s own updates' rounding. */
const Box64 &region_at_memo(const PipelineDag &dag, const Decisions &d, int func, int at_func,
                            int at_stage, int level, const Box64 &box, std::map<int, Box64> *memo,
                            Box64 *allocated = nullptr) {
    auto known = memo->find(func);
    if (known != memo->end()) return known->second;
    Box64 acc(dag.funcs[func].dims.size());
    Box64 past(acc.size()); // what RoundUp updates read beyond their consumers' needs
    auto is_target = [&](const Edge &e) {
        return e.kind == ProducerKind::Func && e.producer == func;
    };
    auto reach = [&](const Edge &, const Box64 &r) { include_box(&acc, r); };
    for (const StageRef &r : effective_consumers(dag, d, func)) {
        if (r.first == at_func) {
            SEXTANT_ASSERT(r.second == at_stage, "a Func computed in one stage of a Func whose "
                                                 "other stage reads it");
            walk_required(dag, d, r, box, is_target, reach);
        } else {
            // A consumer computed deeper inside the same loop (beside the Func, or nested in
            // another Func of the nest): cover all its realizations inside one iteration of
            // `level`.
            SEXTANT_ASSERT(d[r.first].placement == Placement::At,
                           "a Func computed inside a loop that does not enclose all its uses");
            const Box64 &g = region_at_memo(dag, d, r.first, at_func, at_stage, level, box, memo);
            const Stage &s = dag.stage(r.first, r.second);
            walk_required(
                dag, d, r,
                stage_loop_box(s, r.second == 0 ? shifted_in_region(dag, d, r.first, g) : g),
                is_target, reach);
            // An update with a RoundUp split runs whole tiles and reads past what the
            // consumer's own region needs: the buffer holds those reads (not computed).
            if (allocated && r.second > 0) {
                const Box64 grown = rounded_up_region(dag, d, r.first, g);
                if (grown != g)
                    required_region(dag, d, r, stage_loop_box(s, grown), ProducerKind::Func, func,
                                    &past);
            }
        }
    }
    if (allocated) {
        *allocated = acc;
        for (size_t k = 0; k < past.size(); k++)
            (*allocated)[k].include(past[k]);
    }
    return memo->emplace(func, std::move(acc)).first->second;
}

/** Which iteration of every loop around a Func: the middle one (what a typical iteration
 * computes and allocates) or the last one (a split's last tile shifted inwards, whole). */
enum class Iteration { Middle, Last };

Box64 region_at_iteration(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                          Iteration it);

/** The loop box of one iteration of `level` of stage `at_stage` of `at_func` that is the
 * middle (or last) iteration of it and of every loop around it, out to the root. */
Box64 iteration_box(const PipelineDag &dag, const Decisions &d, const Nests &nests, int at_func,
                    int at_stage, int level, Iteration it) {
    const StageNest &sn = nests[size_t(at_func)]->stages[size_t(at_stage)];
    Box64 region = region_at_iteration(dag, d, nests, at_func, it);
    if (at_stage == 0) region = shifted_in_region(dag, d, at_func, std::move(region));
    Box64 b = stage_loop_box(dag.stage(at_func, at_stage), region);
    if (it == Iteration::Middle) return box_at_level(sn, level, true, std::move(b));
    for (int j = 0; j <= level && j < int(sn.order.size()); j++) {
        const ConcreteLoop &l = sn.order[size_t(j)];
        Interval64 &i = b[size_t(l.stage_loop)];
        i.min = std::max(i.min, i.max - l.span + 1);
    }
    return b;
}

/** The region of `func` at the middle (or last) iteration of every loop around it, out to the
 * root. */
Box64 region_at_iteration(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                          Iteration it) {
    const FuncSched &fs = d[size_t(func)];
    if (fs.placement != Placement::At) return nests[size_t(func)]->region;
    std::map<int, Box64> memo;
    return region_at_memo(dag, d, func, fs.at_func, fs.at_stage, fs.at_level,
                          iteration_box(dag, d, nests, fs.at_func, fs.at_stage, fs.at_level, it),
                          &memo);
}

} // namespace

Box64 allocated_at_last(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                        int at_func, int at_stage, int level) {
    std::map<int, Box64> memo;
    Box64 allocated;
    region_at_memo(dag, d, func, at_func, at_stage, level,
                   iteration_box(dag, d, nests, at_func, at_stage, level, Iteration::Last), &memo,
                   &allocated);
    return rounded_up_region(dag, d, func, allocated);
}

Box64 region_at(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                int at_func, int at_stage, int level, Box64 *allocated) {
    // Consumers computed in the same nest are asked for again by each of their producers:
    // remember each one's region for this (at_func, at_stage, level).
    const StageNest &sn = nests[size_t(at_func)]->stages[size_t(at_stage)];
    std::map<int, Box64> memo;
    Box64 r = region_at_memo(dag, d, func, at_func, at_stage, level, box_at_level(sn, level), &memo,
                             allocated);
    // The same at the middle iteration of every loop around it: the middle's extents at the
    // first iteration's position.
    std::map<int, Box64> middle_memo;
    Box64 middle_allocated;
    const Box64 &middle =
        region_at_memo(dag, d, func, at_func, at_stage, level,
                       iteration_box(dag, d, nests, at_func, at_stage, level, Iteration::Middle),
                       &middle_memo, allocated ? &middle_allocated : nullptr);
    auto take_extents = [](Box64 *b, const Box64 &other) {
        for (size_t k = 0; k < b->size() && k < other.size(); k++)
            if (other[k].extent() > 0) (*b)[k].max = (*b)[k].min + other[k].extent() - 1;
    };
    take_extents(&r, middle);
    if (allocated) take_extents(allocated, middle_allocated);
    if (allocated) *allocated = rounded_up_region(dag, d, func, *allocated);
    return r;
}

Box64 region_in_box(const PipelineDag &dag, const Decisions &d, int func, int at_func, int at_stage,
                    int level, const Box64 &box) {
    std::map<int, Box64> memo;
    return region_at_memo(dag, d, func, at_func, at_stage, level, box, &memo);
}

bool region_slides_along(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                         int at_func, int at_stage, int level, int order_index) {
    const StageNest &sn = nests[at_func]->stages[size_t(at_stage)];
    const ConcreteLoop &l = sn.order[size_t(order_index)];
    if (l.extent < 2) return false;
    const Box64 first = box_at_level(sn, level);
    Box64 second = first;
    second[size_t(l.stage_loop)].min += l.span;
    second[size_t(l.stage_loop)].max += l.span;
    std::map<int, Box64> m1, m2;
    const Box64 &a = region_at_memo(dag, d, func, at_func, at_stage, level, first, &m1);
    const Box64 &b = region_at_memo(dag, d, func, at_func, at_stage, level, second, &m2);
    if (a == b) return false;
    for (size_t i = 0; i < a.size() && i < b.size(); i++) {
        if (std::max(a[i].min, b[i].min) > std::min(a[i].max, b[i].max)) return false;
        // The loop must carry the window further than its own size. Halide rewinds a
        // sliding loop into one step per shift of the window (the loop's min moved back by
        // the window's extent), so a window wider than the loop's whole travel is computed
        // in that many slivers, each rounded up to the Func's vectors and tiles and each
        // computing the producers inside it again: a 3-tap RVar loop `r` with the whole
        // row inside it, the window `x + r` sliding one column per step, became 435 steps
        // (random pipeline 100782: 400 ms against 0.6 ms computed once outside `r`, priced
        // 1.65 ms). Computing it at the storage level is the same work at once.
        const int64_t shift = std::abs(b[i].min - a[i].min);
        if (shift > 0 && double(shift) * double(l.extent) < double(a[i].extent())) return false;
    }
    return true;
}

} // namespace sextant
