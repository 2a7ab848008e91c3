// Featurizer: computes per-stage algorithm features (once per DAG) and schedule features (per
// search state and stage). Pure functions of (PipelineDag, Decisions, Nests); no Halide, no
// Torch. Feature meanings are documented in ScheduleFeatures.def / docs/FEATURES.md.
#pragma once

#include "dag/PipelineDag.h"
#include "featurizer/Schema.h"
#include "search/LoopNest.h"

#include <array>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace sextant {

using ScheduleRow = std::array<double, kNumScheduleFeatures>;

/** Rows to score: each is one stage of one candidate state. */
struct FeatureBatch {
    /** Algorithm features, one vector per stage id (see Featurizer::stage_id). Shared. */
    const std::vector<std::vector<float>> *algorithm = nullptr;
    std::vector<int> stage_ids;
    std::vector<int> state_index; // which candidate each row belongs to
    std::vector<ScheduleRow> schedule;
    int num_states = 0;
    size_t size() const { return schedule.size(); }
    void clear() {
        stage_ids.clear();
        state_index.clear();
        schedule.clear();
        num_states = 0;
    }
};

struct StageLoads;
using RegionsPtr = std::shared_ptr<const std::vector<ProducerRegion>>;

/** Featurizer::sibling_reads: per Func computed at a loop of one stage (and per stage of it),
 * the stage's footprints over one iteration of that loop and the Func's over its realization
 * there. */
struct SiblingReads {
    std::vector<std::pair<RegionsPtr, RegionsPtr>> stage_and_sibling;
    /** Bytes of the smallest footprint of producer (`kind`, `producer`, `bytes_per_point`
     * each) that one of the Funcs reads where it holds all the stage reads of it in that
     * iteration: the part the stage finds hot (0 if none). */
    double hot_part(ProducerKind kind, int producer, int bytes_per_point) const;
};

/** heap_group_bytes of every Func of one schedule, each group summed once. */
class HeapGroups {
public:
    HeapGroups() = default;
    HeapGroups(const PipelineDag &dag, const Decisions &d, const Nests &nests) {
        reset(dag, d, nests);
    }
    /** The groups of another schedule, reusing the arrays. */
    void reset(const PipelineDag &dag, const Decisions &d, const Nests &nests);
    double of(int func) const { return group_bytes_[size_t(anchor_[size_t(func)])]; }

private:
    std::vector<int> anchor_;         // per Func: its Root anchor
    std::vector<double> group_bytes_; // per anchor Func
};

class Featurizer {
public:
    explicit Featurizer(const PipelineDag &dag);

    /** Dense index of (func, stage) over the whole DAG. */
    int stage_id(int func, int stage) const { return stage_base_[func] + stage; }
    const std::vector<std::vector<float>> &algorithm_table() const { return algorithm_; }

    /** Every stage of one complete schedule (inlined Funcs have no rows), as a batch of one
     * state: what the plugin writes as the featurization and the training export stores. */
    FeatureBatch featurize_schedule(const Decisions &d, const Nests &nests) const;

    /** Schedule features of one stage of a non-inlined, decided Func; `groups` (optional)
     * are the schedule's heap groups, computed once for all its rows. */
    ScheduleRow schedule_features(const Decisions &d, const Nests &nests, int func, int stage,
                                  const HeapGroups *groups = nullptr) const;

private:
    /** What a stage's loads and footprints depend on besides its loop box: the stage, every
     * Func it reads through that is inlined (ascending), and the Funcs those read that are
     * computed at the stage's own loops (ascending, after -2), written into `key`. */
    void inline_key(const Decisions &d, const Stage &s, std::vector<int64_t> &key) const;
    /** collect_stage_loads(dag_, d, s), walked once per stage and inlined set (`key`) and
     * shared by every state with that set (thread-safe). */
    std::shared_ptr<const StageLoads> stage_loads(const std::vector<int64_t> &key,
                                                  const Decisions &d, const Stage &s) const;
    /** required_regions of stage `s` over `box`, once per inlined set (`inline_key` up to its
     * -2) and box (thread-safe): siblings that differ in other Funcs' schedules share their
     * footprints. */
    std::shared_ptr<const std::vector<ProducerRegion>>
    footprints(const std::vector<int64_t> &inline_key, const Decisions &d, const Stage &s,
               const Box64 &box) const;

    /** How many times the loops of `func`'s anchor stage around its realization read the
     * same part of root producer (`kind`, `producer`, `bytes_per_point` each) again, each
     * time more of it than `cache_bytes` (1: once; RootStreams.cpp). `key`/`loads`: stage
     * `s`'s inline key and loads. */
    double streamed_times(const Decisions &d, const Nests &nests, int func, const Stage &s,
                          const std::vector<int64_t> &key, const StageLoads &loads,
                          ProducerKind kind, int producer, int bytes_per_point,
                          double cache_bytes) const;
    /** Bytes stage `s` (nest `sn`, one realization) reads again because a loop of its own
     * nest leaves the footprint of a Func computed inside the realization where it was
     * while one iteration of that loop touches more than kPrivateCacheBytes: each further
     * iteration reads that footprint into the core's cache again (RootStreams.cpp).
     * `key`/`loads`: the stage's inline key and loads; `whole`: its footprints over the
     * realization's loop box. */
    double reread_bytes(const Decisions &d, const Stage &s, const StageNest &sn,
                        const std::vector<int64_t> &key, const StageLoads &loads,
                        const std::vector<ProducerRegion> &whole) const;

    /** The footprints of every Func computed at a loop of stage `stage` of `func` (nest
     * `sn`), each over one iteration of that loop, beside the stage's own over the same
     * iteration: what those Funcs' realizations have just brought into cache for the stage
     * (RootStreams.cpp). `key`: the stage's inline key. Gathered once per stage row. */
    SiblingReads sibling_reads(const Decisions &d, const Nests &nests, int func, int stage,
                               const Stage &s, const StageNest &sn,
                               const std::vector<int64_t> &key) const;

    struct KeyHash {
        size_t operator()(const std::vector<int64_t> &k) const;
    };

    const PipelineDag &dag_;
    std::vector<int> stage_base_;
    std::vector<int> widest_type_bytes_; // per stage_id: OpHistogram::widest_type_bytes
    std::vector<std::vector<float>> algorithm_;
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::vector<int64_t>, std::shared_ptr<const StageLoads>, KeyHash>
        loads_cache_;
    mutable std::unordered_map<std::vector<int64_t>,
                               std::shared_ptr<const std::vector<ProducerRegion>>, KeyHash>
        regions_cache_;
};

/** glibc's malloc as Halide 14's generated code meets it (docs/COSTMODEL.md, "Allocation").
 * A buffer that is a small constant size lives on the stack; larger ones are malloc'd at
 * their storage loop and freed after it. Freeing a large chunk trims the arena's top back
 * to kTrimThresholdBytes (128 KiB: M_TRIM_THRESHOLD and M_TOP_PAD's defaults), so buffers
 * stored inside a loop whose heap exceeds that fault their pages back in on every
 * iteration; chunks over kMmapMaxBytes are mmap'd and unmapped every time. */
constexpr double kStackAllocationBytes = 16 * 1024;
constexpr double kTrimThresholdBytes = 128 * 1024;
constexpr double kMmapMaxBytes = 32.0 * 1024 * 1024;
constexpr double kPageBytes = 4096;
/** A gather from a producer whose whole buffer is at most this size (a lookup table that stays
 * in L1) counts kL1TableGatherLane of a lane in `gather_lane_executions`. */
constexpr double kL1TableBytes = 16 * 1024;
constexpr double kL1TableGatherLane = 0.5;
/** A core's private cache (L2: 512 KiB to 2 MiB on current x86 cores; Halide's machine
 * params name only the last level): a loop whose one iteration touches more than this
 * evicts what its next iteration reads again (Featurizer::reread_bytes). */
constexpr double kPrivateCacheBytes = 1024 * 1024;
constexpr double kCacheLineBytes = 64;

/** Heap bytes of every buffer stored inside the nest of `func`'s Root anchor (the Func
 * whose loops hold it, following compute_at consumers outwards): what one iteration of
 * that nest's loops may hold at once. */
double heap_group_bytes(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func);

/** Page faults per run from `func`'s allocations as its own nest sees them (the per-stage
 * `page_faults` feature: the trim threshold at its default, the rest of the pipeline unseen).
 * `groups` (optional) holds the schedule's heap groups, computed once. */
double page_faults_per_run(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                           const HeapGroups *groups = nullptr);

/** What glibc's malloc costs a whole schedule per run (every decided Func), as the allocator
 * behaves after the first run of a process:
 *  - the first free of a chunk between 128 KiB and 32 MiB (each is mmap'd the first time)
 *    raises the mmap threshold to its size and the trim threshold to twice that;
 *  - the Root buffers share the main arena with one iteration of some nest (the main thread
 *    runs parallel tasks too): when that total plus the top pad passes the trim threshold,
 *    freeing them trims the arena and every Root page faults again next run;
 *  - the buffers stored inside one Root Func's nest share a thread's arena per iteration:
 *    past the threshold each allocation re-faults its share of what the trim released;
 *  - a buffer over 32 MiB is mmap'd and unmapped at every allocation.
 * The per-stage view cannot see this (the threshold depends on the largest buffer anywhere),
 * so the evaluator prices it per state (ModelEvaluator). */
struct AllocatorEstimate {
    double trim_threshold_bytes = 0;
    double page_faults = 0;       ///< per run, all of them
    double page_faults_nests = 0; ///< of those, by buffers inside compute_at nests (threads)
    double heap_mallocs = 0;      ///< allocations that go to malloc, per run
    double root_heap_bytes = 0;
};
/** One buffer's share of an AllocatorEstimate (for the debug summary). */
struct AllocatorBuffer {
    int func = -1;
    double bytes = 0;       ///< from malloc (0: on the stack)
    double allocations = 0; ///< per run
    double page_faults = 0; ///< per run
};
/** The share of a trim that happens when an arena's top chunk would reach `top_bytes` against
 * a trim threshold of `threshold`: 0 below, 1 above, a linear ramp across +-0.5% of it; 0 for
 * a top no larger than the 128 KiB pad a trim keeps (it releases nothing). */
double trim_share(double top_bytes, double threshold);

/** `buffers`, if given, receives every decided non-output Func's buffer (the search, which
 * calls this for every state it scores, passes none). With `outlook`, a Func not yet placed
 * (Placement::Undecided) counts as a root buffer of its whole bounds in the thresholds: a
 * prefix priced as if its producers will raise them (the search's allocator outlook pass). */
AllocatorEstimate estimate_allocator(const PipelineDag &dag, const Decisions &d, const Nests &nests,
                                     std::vector<AllocatorBuffer> *buffers = nullptr,
                                     bool outlook = false);

} // namespace sextant
