// The allocator estimate (docs/COSTMODEL.md, "Allocation"): which of a schedule's buffers
// glibc's arena trim makes fault again every run, per Func and for the whole schedule.
#include "Featurizer.h"

#include <algorithm>
#include <cmath>

namespace sextant {

namespace {

/** Bytes of the Func's buffer that malloc provides (0: on the stack). */
double heap_bytes(const PipelineDag &dag, const Decisions &d, const FuncNest &n) {
    double bytes = n.alloc_points * dag.funcs[n.func].bytes_per_point;
    if (d[n.func].stack && n.constant_size) return 0;
    return bytes <= kStackAllocationBytes ? 0 : bytes;
}

/** An arena's extent after a run of buffers: how far they reach, and its top chunk once all
 * are freed, grown as glibc grows the main arena (place_in_arena). */
struct ArenaExtent {
    double reach = 0, top = 0;
};

/** The arena's extent with buffers of `sizes` bytes allocated and freed as `life` says
 * ([allocated at, freed after] by Func id), in allocation order. */
ArenaExtent place_in_arena(const std::vector<double> &sizes,
                           const std::vector<std::pair<int, int>> &life) {
    // Place the buffers as glibc does, to see how far the arena reaches: each request takes the
    // smallest freed hole it fits (its large bins are best fit), else the top; a freed block
    // merges with freed neighbours, and into the top when it is the last. A hole a larger
    // buffer does not fit stays below it, so the arena can reach past the most ever live at
    // once (bench camera_pipe, per 8-row strip: `sensor` 142 KiB is freed after `linear`,
    // and `demosaiced` 243 KiB goes above both: 486 KiB reached, at most 344 KiB live).
    struct Block {
        double offset, size;
        int owner; // -1: freed
    };
    thread_local std::vector<Block> blocks;
    blocks.clear();
    // glibc grows the main arena by a request the top cannot meet plus the top pad (128 KiB),
    // starting from the pad a trim leaves; a later request that fits in what is left grows
    // nothing. `top` is the top once all are freed: the reach plus the pad only when the
    // last growth came at the reach (bench depthwise_separable_conv per 8-row strip: 146 KiB
    // then 115 KiB leave a top of 274 KiB, under the 292 KiB threshold its first buffer
    // sets; 0.1 faults a run measured, where adding the pad to the reach charged 1,827).
    double extent = 0, reach = 0, top = kTrimThresholdBytes;
    auto release = [&](int owner) {
        size_t k = 0;
        while (k < blocks.size() && blocks[k].owner != owner)
            k++;
        if (k == blocks.size()) return;
        blocks[k].owner = -1;
        if (k + 1 < blocks.size() && blocks[k + 1].owner < 0) {
            blocks[k].size += blocks[k + 1].size;
            blocks.erase(blocks.begin() + long(k) + 1);
        }
        if (k > 0 && blocks[k - 1].owner < 0) {
            blocks[k - 1].size += blocks[k].size;
            blocks.erase(blocks.begin() + long(k));
            k--;
        }
        if (k + 1 == blocks.size()) {
            extent = blocks[k].offset;
            blocks.pop_back();
        }
    };
    thread_local std::vector<char> freed_yet;
    freed_yet.assign(sizes.size(), 0);
    for (size_t i = 0; i < sizes.size(); i++) {
        // Free, in the order of their last uses, the buffers dead before this one is made.
        for (;;) {
            size_t next = sizes.size();
            for (size_t j = 0; j < i; j++)
                if (!freed_yet[j] && life[j].second < life[i].first &&
                    (next == sizes.size() || life[j].second < life[next].second))
                    next = j;
            if (next == sizes.size()) break;
            freed_yet[next] = 1;
            release(int(next));
        }
        const double want = sizes[i];
        if (want <= 0) continue;
        size_t best = blocks.size();
        for (size_t k = 0; k < blocks.size(); k++)
            if (blocks[k].owner < 0 && blocks[k].size >= want &&
                (best == blocks.size() || blocks[k].size < blocks[best].size))
                best = k;
        if (best == blocks.size()) {
            blocks.push_back({extent, want, int(i)});
            extent += want;
            reach = std::max(reach, extent);
            if (extent > top) top = extent + kTrimThresholdBytes;
        } else {
            const double rest = blocks[best].size - want;
            blocks[best].size = want;
            blocks[best].owner = int(i);
            if (rest > 0)
                blocks.insert(blocks.begin() + long(best) + 1,
                              {blocks[best].offset + want, rest, -1});
        }
    }
    return {reach, top};
}

/** The extent of the heap the buffers of one Root Func's nest take within one iteration
 * in its arena (`members`: their ids, heap bytes in `bytes`): at least the most they hold at
 * once, more where a freed buffer leaves a hole a later one does not fit. Funcs are realized in id
 * order (producers first) and Halide frees a buffer right after its last use: at the end of its
 * last consumer's production when that consumer is computed at the same loop as it or inside a
 * sibling's loops; a buffer read by a Func computed at a deeper loop of the nest (or by the
 * Root Func itself) lives until its own loop's iteration ends. Bench max_filter, per output
 * strip and channel: `window_1` + `table` + `window_3` (3,498 KiB) is the peak, `window_3` is
 * freed before `maximum` is allocated (a malloc log's frees). */
ArenaExtent nest_arena(const PipelineDag &dag, const Decisions &d, const std::vector<int> &members,
                       const std::vector<double> &bytes, int anchor,
                       const std::vector<int> &root_anchor_of,
                       std::vector<std::pair<int, int>> &life) {
    const int never = int(dag.funcs.size());
    // The member of the Root Func's own nest that each member is, or is computed inside.
    auto top = [&](int g) {
        while (d[size_t(g)].at_func != anchor)
            g = d[size_t(g)].at_func;
        return g;
    };
    life.clear(); // [allocated at, freed after] in id order
    for (int g : members) {
        const int tg = top(g);
        int freed = -1;
        for (const StageRef &c : effective_consumers(dag, d, g)) {
            const int f = c.first;
            if (f == anchor || d[size_t(f)].placement != Placement::At ||
                root_anchor_of[size_t(f)] != anchor) {
                freed = never;
                break;
            }
            const int tf = top(f);
            // A consumer inside a sibling's loops counts as that sibling's production; one at
            // a deeper loop of the Root Func than `g`'s own keeps `g` to its loop's end.
            if (tg == g && tf != g &&
                d[size_t(tf)].storage_level() > d[size_t(g)].storage_level()) {
                freed = never;
                break;
            }
            freed = std::max(freed, tg == g ? tf : f);
        }
        // Computed inside a sibling's loops: freed by the time that sibling is produced.
        if (tg != g) freed = std::max(freed, tg);
        life.push_back({g, freed < 0 ? never : freed});
    }
    thread_local std::vector<double> sizes;
    sizes.clear();
    for (int g : members)
        sizes.push_back(bytes[size_t(g)]);
    return place_in_arena(sizes, life);
}

/** The main arena's top once freed (ArenaExtent::top) with the Root Funcs' heap buffers (`members`,
 * in id order) and, while each Root Func is produced, one iteration's buffers of its nest (`group`,
 * by Func id: the main thread runs parallel tasks too). A Root buffer is allocated when it is
 * produced and freed after its last consumer's production (Halide's early frees), or that of
 * the Root Func whose nest the consumer is in. A chain of Root Funcs each read only by the
 * next holds two buffers at once, not all of them (random pipeline 101069: five Root buffers
 * of 4.6-6.4 MB, 25 MB in all, under a 12.8 MB trim threshold, ran with no page faults;
 * summing them predicted 4,932 a run). A nest's buffers count beside the Root buffers live
 * while it runs, not beside the most ever live (session 51: bench local_laplacian's
 * expert-like schedule, its 1.5 MiB strip of `out_g_0` added to a Root peak reached before
 * `output` runs, was charged 11,900 faults a run at a 59.8 MiB threshold; it took 250). */
double root_arena_top(const PipelineDag &dag, const Decisions &d, const std::vector<int> &members,
                      const std::vector<double> &bytes, const std::vector<double> &group,
                      const std::vector<int> &root_anchor_of,
                      std::vector<std::pair<int, int>> &life) {
    const int never = int(dag.funcs.size());
    thread_local std::vector<double> sizes;
    sizes.clear();
    life.clear();
    size_t next_root = 0;
    for (int a = 0; a < never; a++) {
        for (; next_root < members.size() && members[next_root] <= a; next_root++) {
            const int g = members[next_root];
            int freed = -1;
            for (const StageRef &c : effective_consumers(dag, d, g))
                freed = std::max(freed, root_anchor_of[size_t(c.first)]);
            life.push_back({g, freed < 0 ? never : freed});
            sizes.push_back(bytes[size_t(g)]);
        }
        if (group[size_t(a)] > 0) {
            life.push_back({a, a});
            sizes.push_back(group[size_t(a)]);
        }
    }
    return place_in_arena(sizes, life).top;
}

/** The largest single allocation among a Func's `bytes` of buffer: Halide allocates each
 * Tuple element as a buffer of its own (random pipeline 101083: a two-element Tuple of 31.4
 * MB is two 15.7 MB mallocs, so glibc's trim threshold after a run is 31.4 MB, not 62.8, and
 * the schedule's 50 MB of Root buffers fault every run: 13,000 faults measured, 0 predicted
 * while the Tuple counted as one buffer). */
double largest_allocation_bytes(const PipelineDag &dag, int func, double bytes) {
    const FuncNode &f = dag.funcs[size_t(func)];
    if (f.value_types.size() < 2 || f.bytes_per_point <= 0) return bytes;
    return bytes * f.element_bytes() / f.bytes_per_point;
}

} // namespace

// glibc trims when the top chunk reaches the threshold, a step at one byte; the estimate of
// the peak is good to chunk headers and page rounding, so the step is a ramp across +-0.5% of
// the threshold (max_filter's faster schedule peaks 0.85% under it). A top no larger than
// the pad a trim keeps releases nothing, whatever the threshold.
double trim_share(double top_bytes, double threshold) {
    if (top_bytes <= kTrimThresholdBytes) return 0;
    const double lo = 0.995 * threshold, hi = 1.005 * threshold;
    return std::clamp((top_bytes - lo) / (hi - lo), 0.0, 1.0);
}

double heap_group_bytes(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func) {
    const int anchor = root_anchor(d, func);
    double total = 0;
    for (size_t g = 0; g < nests.size(); g++)
        if (nests[g] && d[g].placement == Placement::At && root_anchor(d, int(g)) == anchor)
            total += heap_bytes(dag, d, *nests[g]);
    return total;
}

void HeapGroups::reset(const PipelineDag &dag, const Decisions &d, const Nests &nests) {
    root_anchors(d, anchor_);
    group_bytes_.assign(d.size(), 0.0);
    for (size_t g = 0; g < d.size(); g++) {
        if (nests[g] && d[g].placement == Placement::At)
            group_bytes_[size_t(anchor_[g])] += heap_bytes(dag, d, *nests[g]);
    }
}

double page_faults_per_run(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                           const HeapGroups *groups) {
    const FuncNest &n = *nests[func];
    const double bytes = heap_bytes(dag, d, n);
    if (largest_allocation_bytes(dag, func, bytes) > kMmapMaxBytes)
        return n.store_realizations * std::ceil(bytes / kPageBytes);
    if (bytes == 0 || d[func].placement != Placement::At) return 0;
    const double group = groups ? groups->of(func) : heap_group_bytes(dag, d, nests, func);
    if (group <= kTrimThresholdBytes) return 0;
    // The trim releases what the group's frees leave above the threshold; each buffer is
    // charged its share of those pages, once per allocation.
    return n.store_realizations * (bytes / kPageBytes) * (group - kTrimThresholdBytes) / group;
}

/** Calls of the function that holds a Func's pseudostack slot: the parallel tasks of the
 * innermost parallel loop enclosing its storage (each task is a function of its own), or one
 * call of the pipeline when none does. */
static double calls_holding(const Decisions &d, const Nests &nests, int func) {
    double calls = 1;
    for (int g = func; d[size_t(g)].placement == Placement::At; g = d[size_t(g)].at_func) {
        const FuncSched &fs = d[size_t(g)];
        const FuncNest &anchor = *nests[size_t(fs.at_func)];
        const StageNest &sn = anchor.stages[size_t(fs.at_stage)];
        const int store = fs.storage_level();
        for (int lv = 0; lv <= store && lv < int(sn.order.size()); lv++)
            if (sn.order[size_t(lv)].parallel)
                calls = std::max(calls, double(sn.parallel_tasks) * anchor.realizations);
        if (calls > 1) return calls;
    }
    return calls;
}

AllocatorEstimate estimate_allocator(const PipelineDag &dag, const Decisions &d, const Nests &nests,
                                     std::vector<AllocatorBuffer> *buffers, bool outlook) {
    AllocatorEstimate e;
    const size_t n = nests.size();
    // The search calls this for every candidate: its arrays are kept per thread, not allocated.
    struct Scratch {
        std::vector<double> bytes, allocs, group, tops;
        std::vector<char> mmapped; // an allocation over kMmapMaxBytes: mmap'd every time
        std::vector<int> root, anchor, anchors, members, roots, slot, start, by_anchor;
        std::vector<std::pair<int, int>> life;
    };
    thread_local Scratch scratch;
    std::vector<double> &bytes = scratch.bytes;
    std::vector<double> &allocs = scratch.allocs; // mallocs per run
    std::vector<char> &mmapped = scratch.mmapped;
    bytes.assign(n, 0.0);
    allocs.assign(n, 0.0);
    mmapped.assign(n, 0);
    double largest_mmapped = 0;
    for (size_t g = 0; g < n; g++) {
        const FuncNode &node = dag.funcs[g];
        if (outlook && d[g].placement == Placement::Undecided && !node.is_output &&
            !node.is_input_wrapper) {
            // A Func the search has not placed yet (its producers come after its consumers)
            // may be realized at root, and freeing that buffer raises the thresholds for all
            // the others. Bench interpolate's pyramid: `down_3` and `down_2` at root were
            // charged 10.8 and 20.0 ms of faults until `down_1`, 16x their size, came and
            // took the charge back to 0, which kept its best schedule out of the beam.
            const double whole = double(box_volume(node.bounds)) * node.bytes_per_point;
            const double one = largest_allocation_bytes(dag, int(g), whole);
            if (one >= kTrimThresholdBytes && one <= kMmapMaxBytes)
                largest_mmapped = std::max(largest_mmapped, one);
            continue;
        }
        if (!nests[g] || node.is_output) continue;
        const FuncNest &fn = *nests[g];
        bytes[g] = heap_bytes(dag, d, fn);
        allocs[g] = bytes[g] > 0 ? fn.store_realizations : 0;
        const double own = fn.alloc_points * dag.funcs[g].bytes_per_point;
        if (bytes[g] == 0 && d[g].stack && own > kStackAllocationBytes) {
            // store_in(MemoryType::Stack) over 16 KiB is Halide's pseudostack: malloc'd by
            // halide_malloc once per call of the function holding it (a parallel task, or the
            // pipeline) and kept across that call's serial iterations. Bench harris: four
            // 133 KiB `stack` buffers per 64-row task beside a 409 KiB heap buffer, 8,120
            // faults per run (a malloc-logging LD_PRELOAD shows each once per task).
            bytes[g] = own;
            allocs[g] = std::min(fn.store_realizations, calls_holding(d, nests, int(g)));
        }
        const double one = largest_allocation_bytes(dag, int(g), bytes[g]);
        mmapped[g] = one > kMmapMaxBytes;
        if (one >= kTrimThresholdBytes && !mmapped[g])
            largest_mmapped = std::max(largest_mmapped, one);
        e.heap_mallocs += allocs[g];
    }
    e.trim_threshold_bytes = std::max(kTrimThresholdBytes, 2 * largest_mmapped);
    std::vector<int> &anchor = scratch.anchor;
    std::vector<int> &anchors = scratch.anchors; // Root Funcs whose nests hold heap buffers
    std::vector<int> &slot = scratch.slot;       // an anchor's index in `anchors`, or -1
    std::vector<int> &root = scratch.root;
    root_anchors(d, root);
    anchor.assign(n, -1);
    anchors.clear();
    slot.assign(n, -1);
    std::vector<int> &roots = scratch.roots; // the Root buffers, in id order
    roots.clear();
    for (size_t g = 0; g < n; g++) {
        if (bytes[g] == 0 || mmapped[g]) continue;
        if (d[g].placement == Placement::Root) {
            e.root_heap_bytes += bytes[g];
            roots.push_back(int(g));
        } else {
            anchor[g] = root[g];
            if (slot[size_t(anchor[g])] < 0) {
                slot[size_t(anchor[g])] = int(anchors.size());
                anchors.push_back(anchor[g]);
            }
        }
    }
    // Each anchor's heap buffers in id order, grouped in one pass (a search state of bench
    // local_laplacian's 86 Funcs scanned every Func once per anchor: 13% of its search).
    std::vector<int> &start = scratch.start, &by_anchor = scratch.by_anchor;
    start.assign(anchors.size() + 1, 0);
    for (size_t g = 0; g < n; g++)
        if (anchor[g] >= 0) start[size_t(slot[size_t(anchor[g])]) + 1]++;
    for (size_t i = 0; i < anchors.size(); i++)
        start[i + 1] += start[i];
    by_anchor.resize(size_t(start.back()));
    {
        std::vector<int> &next = scratch.members; // fill positions, reused below
        next.assign(start.begin(), start.end() - 1);
        for (size_t g = 0; g < n; g++)
            if (anchor[g] >= 0) by_anchor[size_t(next[size_t(slot[size_t(anchor[g])])]++)] = int(g);
    }
    std::vector<double> &group = scratch.group; // the most of that heap live at once
    group.assign(n, 0.0);
    std::vector<double> &tops = scratch.tops; // the arena's top once that heap is freed
    tops.assign(n, 0.0);
    for (size_t i = 0; i < anchors.size(); i++) {
        std::vector<int> &members = scratch.members; // its heap buffers, in id order
        members.assign(by_anchor.begin() + start[i], by_anchor.begin() + start[i + 1]);
        const ArenaExtent a = nest_arena(dag, d, members, bytes, anchors[i], root, scratch.life);
        group[size_t(anchors[i])] = a.reach;
        tops[size_t(anchors[i])] = a.top;
    }
    // The main thread runs parallel tasks too, so the main arena holds the Root buffers and,
    // while a Root Func is produced, one iteration's buffers of its nest (placed in their
    // lifetimes: root_arena_top); it grows by a request the top cannot meet plus the top
    // pad (128 KiB), and once all are freed its top holds what it grew to (place_in_arena: at
    // most the reach plus the pad; on the AVX-512 corpus 390 samples' predictions fell, and
    // the 227 of them with measured faults moved 20% closer, summed).
    const double root_top = root_arena_top(dag, d, roots, bytes, group, root, scratch.life);
    const double root_share = trim_share(root_top, e.trim_threshold_bytes);
    for (size_t g = 0; g < n; g++) {
        if (!nests[g] || dag.funcs[g].is_output) continue;
        AllocatorBuffer b{int(g), bytes[g], allocs[g], 0};
        const double pages = std::ceil(bytes[g] / kPageBytes);
        if (bytes[g] == 0) {
        } else if (mmapped[g]) {
            b.page_faults = allocs[g] * pages;
        } else if (anchor[g] < 0) {
            b.page_faults = allocs[g] * pages * root_share;
        } else {
            // A thread's arena is tested as the main arena's, its top grown with the pad
            // (bench max_filter: a 1,441 KiB group under a 1,462 KiB threshold faulted
            // 76,000 pages per run). glibc grows a worker's arena by the request alone, but
            // testing the group without the pad moved 15 bench picks, 1.13x slower (session
            // 69, bench/experiments/learned_blend).
            const double t = group[size_t(anchor[g])];
            const double share = trim_share(tops[size_t(anchor[g])], e.trim_threshold_bytes);
            if (share > 0 && t > 0) {
                b.page_faults =
                    share * allocs[g] * pages * std::max(0.0, t - kTrimThresholdBytes) / t;
                e.page_faults_nests += b.page_faults;
            }
        }
        e.page_faults += b.page_faults;
        if (buffers) buffers->push_back(b);
    }
    return e;
}

} // namespace sextant
