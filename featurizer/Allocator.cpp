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

} // namespace

double heap_group_bytes(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func) {
    const int anchor = root_anchor(d, func);
    double total = 0;
    for (size_t g = 0; g < nests.size(); g++)
        if (nests[g] && d[g].placement == Placement::At && root_anchor(d, int(g)) == anchor)
            total += heap_bytes(dag, d, *nests[g]);
    return total;
}

double page_faults_per_run(const PipelineDag &dag, const Decisions &d, const Nests &nests,
                           int func) {
    const FuncNest &n = *nests[func];
    const double bytes = heap_bytes(dag, d, n);
    if (bytes > kMmapMaxBytes) return n.store_realizations * std::ceil(bytes / kPageBytes);
    if (bytes == 0 || d[func].placement != Placement::At) return 0;
    const double group = heap_group_bytes(dag, d, nests, func);
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
        const int store = fs.store_level < 0 ? fs.at_level : fs.store_level;
        for (int lv = 0; lv <= store && lv < int(sn.order.size()); lv++)
            if (sn.order[size_t(lv)].parallel)
                calls = std::max(calls, double(sn.parallel_tasks) * anchor.realizations);
        if (calls > 1) return calls;
    }
    return calls;
}

AllocatorEstimate estimate_allocator(const PipelineDag &dag, const Decisions &d, const Nests &nests,
                                     std::vector<AllocatorBuffer> *buffers) {
    AllocatorEstimate e;
    const size_t n = nests.size();
    std::vector<double> bytes(n, 0.0);
    std::vector<double> allocs(n, 0.0); // mallocs per run
    double largest_mmapped = 0;
    for (size_t g = 0; g < n; g++) {
        if (!nests[g] || dag.funcs[g].is_output) continue;
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
        if (bytes[g] >= kTrimThresholdBytes && bytes[g] <= kMmapMaxBytes)
            largest_mmapped = std::max(largest_mmapped, bytes[g]);
        e.heap_mallocs += allocs[g];
    }
    e.trim_threshold_bytes = std::max(kTrimThresholdBytes, 2 * largest_mmapped);
    std::vector<int> anchor(n, -1);
    std::vector<double> group(n, 0.0); // heap of the buffers inside each Root Func's nest
    for (size_t g = 0; g < n; g++) {
        if (bytes[g] == 0 || bytes[g] > kMmapMaxBytes) continue;
        if (d[g].placement == Placement::Root) {
            e.root_heap_bytes += bytes[g];
        } else {
            anchor[g] = root_anchor(d, int(g));
            group[size_t(anchor[g])] += bytes[g];
        }
    }
    // The main thread runs parallel tasks too, so the main arena holds the Root buffers plus
    // one iteration's buffers of some nest; it grows by each request plus the top pad (128
    // KiB). Once all are freed, its top holds their total plus the pad.
    double largest_group = 0;
    for (double t : group)
        largest_group = std::max(largest_group, t);
    const bool root_trimmed =
        e.root_heap_bytes + largest_group + kTrimThresholdBytes > e.trim_threshold_bytes;
    for (size_t g = 0; g < n; g++) {
        if (!nests[g] || dag.funcs[g].is_output) continue;
        AllocatorBuffer b{int(g), bytes[g], allocs[g], 0};
        const double pages = std::ceil(bytes[g] / kPageBytes);
        if (bytes[g] == 0) {
        } else if (bytes[g] > kMmapMaxBytes) {
            b.page_faults = allocs[g] * pages;
        } else if (anchor[g] < 0) {
            if (root_trimmed) b.page_faults = allocs[g] * pages;
        } else {
            // A thread's arena top holds the group plus the top pad once all are freed: the
            // same test as the main arena's (bench max_filter: a 1,441 KiB group under a
            // 1,462 KiB threshold faulted 76,000 pages per run).
            const double t = group[size_t(anchor[g])];
            if (t + kTrimThresholdBytes > e.trim_threshold_bytes) {
                b.page_faults = allocs[g] * pages * std::max(0.0, t - kTrimThresholdBytes) / t;
                e.page_faults_nests += b.page_faults;
            }
        }
        e.page_faults += b.page_faults;
        if (buffers) buffers->push_back(b);
    }
    return e;
}

} // namespace sextant
