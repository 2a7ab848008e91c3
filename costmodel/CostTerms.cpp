#include "CostTerms.h"

#include <algorithm>
#include <cmath>

namespace sextant {

TermRow cost_terms(const ScheduleRow &f, int parallelism, double llc_bytes) {
    auto g = [&](ScheduleFeature x) { return f[int(x)]; };
    double P = std::max(1, parallelism);
    double cores;
    if (g(ScheduleFeature::inside_parallel) > 0) {
        cores = P;
    } else {
        cores = std::max(1.0, P * (1.0 - g(ScheduleFeature::idle_core_fraction)));
    }
    double ops = g(ScheduleFeature::ops_per_point);
    double vectors =
        g(ScheduleFeature::num_vectors) / (1.0 - g(ScheduleFeature::vector_tail_waste));
    double scalars = g(ScheduleFeature::scalar_points);
    TermRow t{};
    auto set = [&](CostTerm k, double v) { t[int(k)] = std::max(0.0, v); };
    set(CostTerm::vector_ops, vectors * ops / cores);
    set(CostTerm::scalar_ops, scalars * ops / cores);
    set(CostTerm::dense_loads, g(ScheduleFeature::dense_load_executions) / cores);
    set(CostTerm::gather_loads, g(ScheduleFeature::gather_lane_executions) / cores);
    set(CostTerm::broadcast_loads, g(ScheduleFeature::broadcast_load_executions) / cores);
    double dram = g(ScheduleFeature::dram_bytes);
    set(CostTerm::cache_bytes, (g(ScheduleFeature::total_bytes_read) - dram) / cores);
    set(CostTerm::dram_bytes, dram / std::min(cores, 2.0));
    // Stores into a buffer that stays in a core's own cache (a tile's or a sliding window's
    // few rows) cost what cache reads do; stores into a larger one are written back.
    const double written = g(ScheduleFeature::bytes_written) / cores;
    const bool cache_resident = g(ScheduleFeature::allocation_bytes) <= kCacheResidentBufferBytes;
    set(CostTerm::store_bytes, cache_resident ? 0.0 : written);
    if (cache_resident) t[int(CostTerm::cache_bytes)] += written;
    double allocs = g(ScheduleFeature::num_allocations);
    if (g(ScheduleFeature::allocation_bytes) <= 16 * 1024) allocs *= 0.1; // small: on the stack
    set(CostTerm::allocations, allocs / (g(ScheduleFeature::inside_parallel) > 0 ? P : 1));
    set(CostTerm::page_faults, g(ScheduleFeature::page_faults));
    // A stage under a sliding window is stored fewer times than it is computed (only Funcs
    // without updates slide, so the pure stage's allocations tell).
    const double stored = g(ScheduleFeature::num_allocations);
    const bool sliding = stored > 0 && stored < 0.999 * g(ScheduleFeature::realizations);
    set(CostTerm::loop_overhead,
        (g(ScheduleFeature::inner_loop_iterations) +
         (sliding ? kLoopEntriesPerSlidingRealization * g(ScheduleFeature::realizations) : 0)) /
            cores);
    set(CostTerm::parallel_launches, g(ScheduleFeature::parallel_launches));
    set(CostTerm::task_overhead,
        g(ScheduleFeature::parallel_tasks) * g(ScheduleFeature::parallel_launches) / cores);
    set(CostTerm::false_sharing,
        g(ScheduleFeature::false_sharing) * g(ScheduleFeature::bytes_written) / cores);
    double ws = g(ScheduleFeature::working_set_realization);
    double spill =
        std::max(0.0, ws - llc_bytes / (g(ScheduleFeature::inside_parallel) > 0 ? P : 1));
    set(CostTerm::cache_spill, spill * g(ScheduleFeature::realizations) / cores);
    return t;
}

double allocator_seconds(const AllocatorEstimate &e) {
    return (e.page_faults - e.page_faults_nests) * kMainArenaFaultSeconds +
           e.page_faults_nests * kThreadArenaFaultSeconds;
}

const char *cost_term_name(CostTerm t) {
    static const char *n[] = {
#define SEXTANT_X(name, doc) #name,
        SEXTANT_COST_TERMS(SEXTANT_X)
#undef SEXTANT_X
    };
    return n[int(t)];
}

} // namespace sextant
