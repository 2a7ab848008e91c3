#include "LoopNest.h"
#include "Tails.h"

#include "support/Errors.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <map>

namespace sextant {

StageRefs effective_consumers(const PipelineDag &dag, const Decisions &d, int func) {
    // Called for every child the search makes: the work list and the marks are this thread's
    // scratch, marked with a fresh stamp per call instead of cleared.
    thread_local std::vector<int> work;
    thread_local std::vector<uint32_t> seen;
    thread_local uint32_t stamp = 0;
    if (seen.size() < dag.funcs.size()) seen.resize(dag.funcs.size(), 0);
    if (++stamp == 0) {
        std::fill(seen.begin(), seen.end(), 0);
        stamp = 1;
    }
    StageRefs out;
    work.assign(1, func);
    while (!work.empty()) {
        int f = work.back();
        work.pop_back();
        for (int e : dag.funcs[f].edges_out) {
            const Edge &edge = dag.edges[e];
            int c = edge.consumer_func;
            if (c == f) continue;
            if (is_inlined(dag, d, c)) {
                if (seen[size_t(c)] != stamp) {
                    seen[size_t(c)] = stamp;
                    work.push_back(c);
                }
            } else {
                StageRef r{c, edge.consumer_stage};
                if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

Box64 stage_loop_box(const Stage &s, const Box64 &region) {
    Box64 b(s.loops.size());
    for (size_t i = 0; i < s.loops.size(); i++) {
        const LoopDim &l = s.loops[i];
        b[i] = l.func_dim >= 0 ? region[l.func_dim] : l.range;
    }
    return b;
}

namespace {

/** Calls `visit(dim, step)` for each split of an update's RoundUp loop under `fs`: Halide
 * grows the Func's buffer along `dim` to a multiple of `step` (search/Tails.h). */
template <typename Visit>
void for_each_round_up_split(const FuncNode &f, const FuncSched &fs, Visit visit) {
    for (size_t si = 1; si < f.stages.size() && si < fs.stages.size(); si++) {
        const Stage &s = f.stages[si];
        for (size_t i = 0; i < s.rounds_up.size() && i < fs.stages[si].loops.size(); i++) {
            const LoopTiling &t = fs.stages[si].loops[i];
            if (s.rounds_up[i] && t.mode == LoopMode::Split)
                visit(s.loops[i].func_dim, std::max<int64_t>(1, t.band > 0 ? t.band : t.tile));
        }
    }
}

} // namespace

Box64 rounded_up_region(const PipelineDag &dag, const Decisions &d, int func, Box64 region) {
    for_each_round_up_split(dag.funcs[size_t(func)], d[size_t(func)], [&](int k, int64_t step) {
        if (k < 0 || size_t(k) >= region.size()) return;
        const int64_t e = region[size_t(k)].extent();
        if (e > 0) region[size_t(k)].max = region[size_t(k)].min + (e + step - 1) / step * step - 1;
    });
    return region;
}

bool rounds_up_own_buffer(const PipelineDag &dag, const FuncSched &fs, int func) {
    bool any = false;
    for_each_round_up_split(dag.funcs[size_t(func)], fs, [&](int, int64_t) { any = true; });
    return any;
}

StageNest make_stage_nest(const Stage &s, const StageSched &sched, const Box64 &loop_box) {
    StageNest n;
    n.func = s.func;
    n.stage = s.index;
    n.loop_box = loop_box;
    int k = int(s.loops.size());
    // One allocation for the whole order (the search builds one per stage of every child).
    size_t loops = 0;
    for (int i = 0; i < k; i++) {
        const LoopTiling &t = sched.loops[i];
        loops += t.mode != LoopMode::Split ? 1 : t.band > 0 ? 3 : 2;
    }
    n.order.reserve(loops);
    for (int i = k - 1; i >= 0; i--) {
        const LoopTiling &t = sched.loops[i];
        int64_t e = loop_box[i].extent();
        if (t.mode == LoopMode::Outer) {
            n.order.push_back({i, true, e, 1});
        } else if (t.mode == LoopMode::Split) {
            const int64_t span = t.band > 0 ? t.band : t.tile;
            n.order.push_back({i, true, (e + span - 1) / span, span});
        }
    }
    // The band group: the middle parts of three-level splits.
    for (int i = k - 1; i >= 0; i--) {
        const LoopTiling &t = sched.loops[i];
        if (t.mode != LoopMode::Split || t.band <= 0) continue;
        const int64_t e = std::min(loop_box[i].extent(), t.band);
        ConcreteLoop band{i, false, (e + t.tile - 1) / t.tile, t.tile};
        band.band_part = true;
        n.order.push_back(band);
    }
    // Middle RVars, and the inner part of a split RVar, go just outside the innermost loop.
    SmallVec<ConcreteLoop, 8> middle;
    for (int i = k - 1; i >= 0; i--) {
        const LoopTiling &t = sched.loops[i];
        int64_t e = loop_box[i].extent();
        if (t.mode == LoopMode::Inner) {
            n.order.push_back({i, false, e, 1});
        } else if (t.mode == LoopMode::Split) {
            ConcreteLoop part{i, false, std::min(t.tile, e), 1};
            if (s.loops[i].is_rvar)
                middle.push_back(part);
            else
                n.order.push_back(part);
        } else if (t.mode == LoopMode::Middle) {
            middle.push_back({i, false, e, 1});
        }
    }
    if (!middle.empty() && !n.order.empty()) {
        ConcreteLoop innermost = n.order.back();
        n.order.pop_back();
        n.order.insert(n.order.end(), middle.begin(), middle.end());
        n.order.push_back(innermost);
    } else {
        n.order.insert(n.order.end(), middle.begin(), middle.end());
    }
    n.vector_width = sched.vector_width;
    n.unroll = sched.unroll;
    if (!n.order.empty() && sched.vector_width > 1) n.order.back().vectorized = true;
    for (int u = 1; u <= sched.unroll_outer && u < int(n.order.size()); u++)
        n.order[n.order.size() - 1 - size_t(u)].unrolled = true;
    for (int p = 0; p < sched.parallel && p < int(n.order.size()); p++) {
        n.order[p].parallel = true;
        n.parallel_tasks *= n.order[p].extent;
    }
    return n;
}

NestPtr build_func_nest(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                        const FuncNest *placed) {
    const FuncSched &fs = d[func];
    const FuncNode &f = dag.funcs[func];
    auto n = std::make_shared<FuncNest>();
    // The placement part is shared by siblings that differ only in tiling, unless this
    // tiling's update splits round the Func's own buffer up (a sibling's tiling may not).
    if (placed && !rounds_up_own_buffer(dag, fs, func)) {
        *n = *placed;
    } else {
        place_func_nest(dag, d, nests, func, n.get());
    }
    // The pure definition computes whole steps of its splits (shifted_in_region), and the
    // buffer holds them.
    const Box64 computed = shifted_in_region(dag, d, func, n->region);
    for (size_t k = 0; k < computed.size() && k < n->store_region.size(); k++) {
        const int64_t stored = n->store_region[k].extent();
        if (stored > 0 && computed[k].extent() > stored) {
            n->alloc_points *= double(computed[k].extent()) / double(stored);
            n->max_alloc_points *= double(computed[k].extent()) / double(stored);
        }
    }
    n->stages.reserve(f.stages.size());
    for (size_t s = 0; s < f.stages.size(); s++) {
        const Box64 &box = s == 0 ? computed : n->region;
        n->stages.push_back(
            make_stage_nest(f.stages[s], fs.stages[s], stage_loop_box(f.stages[s], box)));
    }
    return n;
}

void place_func_nest(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                     FuncNest *n) {
    const FuncSched &fs = d[func];
    const FuncNode &f = dag.funcs[func];
    n->func = func;
    if (fs.placement == Placement::Root) {
        n->region = f.bounds;
        n->store_region = f.bounds;
        n->alloc_points = double(box_volume(rounded_up_region(dag, d, func, f.bounds)));
        n->max_alloc_points = n->alloc_points;
    } else {
        SEXTANT_ASSERT(fs.placement == Placement::At, "a Func placed at no loop");
        const FuncNest &c = *nests[fs.at_func];
        Box64 allocated;
        n->region =
            region_at(dag, d, nests, func, fs.at_func, fs.at_stage, fs.at_level, &allocated);
        // Inside a consumer that slides its window, only the iterations that compute new
        // points of it need the producer: scale by the fraction of its points it computes.
        double parent = c.realizations;
        if (c.sliding) {
            double full = c.realizations * double(box_volume(c.region));
            double slid = c.store_realizations * double(box_volume(c.store_region));
            if (full > 0) parent *= std::min(1.0, slid / full);
        }
        n->realizations = parent;
        n->inside_parallel = c.inside_parallel;
        const StageNest &cs = c.stages[fs.at_stage];
        int store = fs.storage_level();
        n->store_realizations = parent;
        for (int j = 0; j <= fs.at_level; j++) {
            n->realizations *= double(cs.order[j].extent);
            if (j <= store) n->store_realizations *= double(cs.order[j].extent);
            n->inside_parallel = n->inside_parallel || cs.order[j].parallel;
        }
        n->sliding = store < fs.at_level;
        n->store_region =
            n->sliding ? region_at(dag, d, nests, func, fs.at_func, fs.at_stage, store) : n->region;
        // Halide folds a sliding window's storage along the dimension it slides in to the
        // power of two at or above one computation's extent (bench max_filter: a 731 KiB
        // window allocated as a 244 KiB ring, seen with a malloc-logging LD_PRELOAD).
        if (n->sliding) allocated = n->store_region;
        // Along the dimensions it slides in, the ring holds what one iteration reads of it.
        // When every consumer slides down the same loop too, that is what the consumer's new
        // points read, not its whole window: Halide slides a chain stage by stage (bench
        // stencil_chain, all ten stages stored per strip and computed per row: no buffer
        // of 64 KiB or more in a malloc log, where folding each to one computation's 9-19
        // rows had predicted 24-97 KiB rings and 395 page faults per run; it faults none).
        std::vector<int64_t> window(n->region.size());
        for (size_t k = 0; k < window.size(); k++)
            window[k] = n->region[k].extent();
        // Halide folds no storage of a Func that some consumers slide down the loop beside it
        // and others do not (bench harris on AVX-512: `gx` read by the sliding `ixy` and by the
        // output it is computed in, through inlined Funcs, is allocated 260 rows a strip, not
        // a 4-row ring; with `ixy` inlined too it is folded to 4).
        bool mixed = false;
        if (n->sliding) {
            std::vector<int64_t> overlap(window.size(), -1);
            int along = 0, other = 0;
            for (const StageRef &r : effective_consumers(dag, d, func)) {
                const FuncSched &rs = d[size_t(r.first)];
                const FuncNest *rn = nests[size_t(r.first)].get();
                const bool slides_along = rn && rn->sliding && rs.placement == Placement::At &&
                                          rs.at_func == fs.at_func && rs.at_stage == fs.at_stage &&
                                          rs.at_level == fs.at_level &&
                                          rn->region.size() == window.size();
                (slides_along ? along : other)++;
                const double full = rn ? rn->realizations * double(box_volume(rn->region)) : 0;
                const double fresh =
                    slides_along && full > 0
                        ? std::min(1.0, rn->store_realizations *
                                            double(box_volume(rn->store_region)) / full)
                        : 1.0;
                for (size_t k = 0; k < window.size(); k++) {
                    int64_t o = 0;
                    if (slides_along && rn->store_region[k].extent() > rn->region[k].extent())
                        o = int64_t(double(rn->region[k].extent()) * (1.0 - fresh));
                    overlap[k] = overlap[k] < 0 ? o : std::min(overlap[k], o);
                }
            }
            for (size_t k = 0; k < window.size(); k++)
                if (overlap[k] > 0) window[k] = std::max<int64_t>(1, window[k] - overlap[k]);
            mixed = along > 0 && other > 0;
        }
        n->alloc_points = 1;
        for (size_t k = 0; k < n->store_region.size(); k++) {
            int64_t e = allocated[k].extent(), folded = 1;
            while (n->sliding && folded < window[k])
                folded *= 2;
            if (n->sliding && !mixed && e > n->region[k].extent()) e = std::min(e, folded);
            n->alloc_points *= double(std::max<int64_t>(0, e));
        }
        // The largest allocation: where two consumers read it along different loops, the
        // hull can grow from one iteration to the next past the middle one's (random
        // pipeline 104215: `mirror_interior$1` per plane of a transposing consumer, 1.7 GB at
        // the middle iteration, 2.3-3.1 GB at the last ones, over Halide's 2 GiB limit at run
        // time). Checked only for buffers large enough to reach the limit that way.
        n->max_alloc_points = n->alloc_points;
        if (n->alloc_points * f.element_bytes() > double(dag.machine.max_buffer_bytes) / 16) {
            const Box64 last =
                allocated_at_last(dag, d, nests, func, fs.at_func, fs.at_stage, fs.at_level);
            for (size_t k = 0; k < last.size() && k < allocated.size(); k++) {
                const int64_t e = allocated[k].extent();
                if (n->sliding && !mixed && e > n->region[k].extent()) continue; // a ring
                if (e > 0 && last[k].extent() > e)
                    n->max_alloc_points *= double(last[k].extent()) / double(e);
            }
        }
        // Constant size: every consumer loop at or outside the compute level covers a
        // constant span (a split's tile, or one point); the loops inside it cover the
        // consumer's whole region, constant only if that is (and never an RDom's range).
        // Computed further out than its consumers' own Funcs (at a loop of a Func that only
        // encloses them), its region passes through their loops, RDoms included: not
        // claimed constant.
        n->constant_size = !n->sliding;
        const Stage &cst = dag.funcs[fs.at_func].stages[fs.at_stage];
        for (size_t i = 0; i < cst.loops.size() && n->constant_size; i++) {
            bool at_or_outside = false;
            for (int j = 0; j <= fs.at_level; j++)
                at_or_outside |= cs.order[j].stage_loop == int(i);
            if (!at_or_outside && (cst.loops[i].is_rvar || !c.constant_size))
                n->constant_size = false;
            // A chunk of a split RVar: its last one is guarded, shorter than the others.
            if (at_or_outside && cst.loops[i].is_rvar &&
                d[size_t(fs.at_func)].stages[size_t(fs.at_stage)].loops[i].mode == LoopMode::Split)
                n->constant_size = false;
        }
        if (n->constant_size)
            for (const StageRef &r : effective_consumers(dag, d, func))
                if (r.first != fs.at_func && d[r.first].at_func != fs.at_func)
                    n->constant_size = false;
        // Read through a clamp, the region is min/max expressions (Tails.h).
        if (dag.funcs[size_t(func)].read_through_clamp) n->constant_size = false;
    }
}

bool loops_may_move(const Decisions &d, int func) {
    if (d[size_t(func)].placement != Placement::Root && d[size_t(func)].placement != Placement::At)
        return false;
    for (size_t g = 0; g < d.size(); g++)
        if (d[g].placement == Placement::At && d[g].at_func == func) return false;
    return true;
}

int root_anchor(const Decisions &d, int func) {
    while (d[func].placement == Placement::At)
        func = d[func].at_func;
    return func;
}

void root_anchors(const Decisions &d, std::vector<int> &out) {
    out.assign(d.size(), -1);
    for (size_t f = 0; f < d.size(); f++) {
        if (out[f] >= 0) continue;
        int g = int(f);
        while (out[size_t(g)] < 0 && d[size_t(g)].placement == Placement::At)
            g = d[size_t(g)].at_func;
        const int anchor = out[size_t(g)] >= 0 ? out[size_t(g)] : g;
        for (int h = int(f); out[size_t(h)] < 0; h = d[size_t(h)].at_func) {
            out[size_t(h)] = anchor;
            if (d[size_t(h)].placement != Placement::At) break;
        }
    }
}

Nests build_all_nests(const PipelineDag &dag, const Decisions &d) {
    Nests nests(dag.funcs.size());
    for (int f = int(dag.funcs.size()) - 1; f >= 0; f--) {
        Placement p = d[f].placement;
        if (!dag.funcs[f].is_input_wrapper && (p == Placement::Root || p == Placement::At))
            nests.set(f, build_func_nest(dag, d, nests, f));
    }
    return nests;
}

} // namespace sextant
