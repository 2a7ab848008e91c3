// CostTerms: the hand-designed cost terms of a stage, computed from its schedule features.
// Predicted seconds for a stage = sum_k coefficient_k * term_k. The analytical model uses
// fixed coefficients; the learned model predicts them per stage. docs/COSTMODEL.md documents
// every term.
#pragma once

#include "featurizer/Featurizer.h"

#include <array>

namespace sextant {

#define SEXTANT_COST_TERMS(X)                                                                      \
    X(vector_ops, "vector arithmetic instructions per core: num_vectors x ops_per_point / cores")  \
    X(scalar_ops, "scalar arithmetic operations per core")                                         \
    X(dense_loads, "contiguous vector loads (or scalar loads) executed, after hoisting, per core") \
    X(gather_loads, "lanes loaded by gathers and strided loads per core")                          \
    X(broadcast_loads, "broadcast loads per core")                                                 \
    X(cache_bytes, "bytes read that hit in cache, per core")                                       \
    X(dram_bytes, "bytes from DRAM, shared by at most two memory channels")                        \
    X(store_bytes, "bytes stored, per core")                                                       \
    X(allocations, "buffer allocations (serialised in the allocator)")                             \
    X(page_faults,                                                                                 \
      "page faults a stage's own nest predicts (priced per state instead: allocator_seconds)")     \
    X(loop_overhead, "innermost loop iterations (and sliding-window steps, "                       \
                     "kLoopEntriesPerSlidingRealization each) per core")                           \
    X(parallel_launches, "parallel loop launches (thread pool wake-up)")                           \
    X(task_overhead, "parallel tasks run, per core")                                               \
    X(false_sharing, "bytes written by tasks that share cache lines, per core")                    \
    X(cache_spill, "bytes of a realization's working set beyond the last-level cache, per core")

enum class CostTerm : int {
#define SEXTANT_X(name, doc) name,
    SEXTANT_COST_TERMS(SEXTANT_X)
#undef SEXTANT_X
        Count
};
constexpr int kNumCostTerms = int(CostTerm::Count);

using TermRow = std::array<double, kNumCostTerms>;

/** Terms of one stage; `parallelism` is the machine's core count. */
TermRow cost_terms(const ScheduleRow &f, int parallelism, double llc_bytes);

/** Each realization of a stage under a sliding window (one step of the window: its bounds,
 * the first-iteration test, the folded storage's index) counts as this many innermost-loop
 * iterations in the loop_overhead term (~70 ns at its analytical coefficient). Bench harris: a
 * schedule computing three producers per row of 64-column strips, sliding down the rows
 * (184,000 realizations per run), ran 12 ms where one with ~200 realizations ran 4.8 ms, and
 * the model without this priced the first 10% cheaper. Plain compute_at realizations are not
 * charged: on bench nl_means, 1.1 million realizations of small stack buffers per run ran in
 * 31 ms in all. */
constexpr double kLoopEntriesPerSlidingRealization = 100;

/** A buffer at most this large stays in a core's private cache (256 KiB to 1 MiB of L2 on
 * today's x86 cores): stores into it are priced as cache traffic (cache_bytes), not written
 * back (store_bytes). Bench box_blur: `rows` sliding down 64-row strips (a 24 KiB buffer)
 * stored 16 MB per run and the whole schedule ran 0.50 ms. */
constexpr double kCacheResidentBufferBytes = 256 * 1024;

/** Seconds of wall time per page fault caused by glibc's allocator, calibrated on the bench
 * (docs/COSTMODEL.md, "Allocation": 5-9 us per fault over 10 schedules). In a thread's arena
 * small trims come once per iteration, each a madvise that shoots down the other threads'
 * TLBs: dearer per fault. */
constexpr double kMainArenaFaultSeconds = 6e-6;
constexpr double kThreadArenaFaultSeconds = 12e-6;

/** Predicted seconds per run the allocator costs a whole schedule (added to the sum over
 * stages by ModelEvaluator, for every cost model: it is a property of glibc, not learned). */
double allocator_seconds(const AllocatorEstimate &e);

const char *cost_term_name(CostTerm t);

} // namespace sextant
