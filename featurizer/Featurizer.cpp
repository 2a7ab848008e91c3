#include "Featurizer.h"

#include "StageLoads.h"
#include "StageView.h"
#include "search/State.h"
#include "support/Errors.h"
#include "support/SmallVec.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>

namespace sextant {

Featurizer::Featurizer(const PipelineDag &dag) : dag_(dag) {
    int n = 0;
    for (const FuncNode &f : dag.funcs) {
        stage_base_.push_back(n);
        n += int(f.stages.size());
        for (const Stage &s : f.stages)
            widest_type_bytes_.push_back(s.ops.widest_type_bytes());
    }
    int num_algo = num_algorithm_features();
    for (const FuncNode &f : dag.funcs) {
        for (const Stage &s : f.stages) {
            std::vector<float> a(num_algo, 0.f);
            for (size_t i = 0; i < s.ops.counts.size(); i++)
                a[i] = float(s.ops.counts[i]);
            size_t base = s.ops.counts.size();
            int data_dependent = 0;
            for (const Load &l : s.loads) {
                AccessSource src = l.self                          ? AccessSource::Self
                                   : l.kind == ProducerKind::Input ? AccessSource::Input
                                                                   : AccessSource::Func;
                int p = int(classify_access(s, l));
                a[base + p * kNumAccessSources + int(src)] += float(l.count);
                data_dependent += l.data_dependent ? l.count : 0;
            }
            bool pure_store = std::all_of(s.loops.begin(), s.loops.end(), [](const LoopDim &l) {
                return l.is_rvar || l.func_dim >= 0;
            });
            int pure_loops = 0;
            for (const LoopDim &l : s.loops)
                pure_loops += l.func_dim >= 0;
            bool scatter = pure_loops < int(f.dims.size());
            AccessPattern store = scatter      ? AccessPattern::Other
                                  : pure_store ? AccessPattern::Pointwise
                                               : AccessPattern::Other;
            a[base + int(store) * kNumAccessSources + int(AccessSource::Store)] += 1;
            base += kNumAccessPatterns * kNumAccessSources;
            a[base] = float(data_dependent);
            int rvars = 0;
            for (const LoopDim &l : s.loops)
                rvars += l.is_rvar;
            a[base + 1] = float(rvars);
            algorithm_.push_back(std::move(a));
        }
    }
}

FeatureBatch Featurizer::featurize_schedule(const Decisions &d, const Nests &nests) const {
    FeatureBatch b;
    b.algorithm = &algorithm_;
    b.num_states = 1;
    for (const FuncNode &f : dag_.funcs) {
        if (!nests[size_t(f.id)]) continue; // inlined
        for (size_t st = 0; st < f.stages.size(); st++) {
            b.schedule.push_back(schedule_features(d, nests, f.id, int(st)));
            b.stage_ids.push_back(stage_id(f.id, int(st)));
            b.state_index.push_back(0);
        }
    }
    return b;
}

namespace {

/** Points computed, and the vector and unrolled shape of the innermost loops. */
void point_and_vector_features(const StageView &v, ScheduleRow &r) {
    const double min_points = double(v.s.points());
    set(r, ScheduleFeature::realizations, v.realizations);
    set(r, ScheduleFeature::points_per_realization, v.points);
    set(r, ScheduleFeature::total_points, v.total);
    set(r, ScheduleFeature::min_points, min_points);
    set(r, ScheduleFeature::recompute_ratio, min_points > 0 ? v.total / min_points : 1);

    const int vw = v.vw;
    const double vector_points = vw > 1 ? v.total : 0;
    set(r, ScheduleFeature::vector_width, vw);
    set(r, ScheduleFeature::vector_points, vector_points);
    set(r, ScheduleFeature::scalar_points, v.total - vector_points);
    // A vector narrower than one register of the Func's type still costs a register per
    // operation, unless the stage computes in a wider type: ops_per_point already counts an
    // operation on a type w times wider w times, which at vw lanes is vw * w / natural
    // registers, so the vector counts as its fill of a register, down to 1/w (a uint8 output
    // computing in int32 at 16 AVX2 lanes: two registers an op, half of 32 lanes' four).
    double per_vector = 1;
    if (vw > 1) {
        const double natural = v.dag.machine.natural_vector_lanes(v.f);
        const double widening =
            std::max(1.0, double(v.widest_type_bytes) / double(std::max(1, v.f.bytes_per_point)));
        per_vector = vw >= natural ? std::ceil(double(vw) / natural)
                                   : std::max(double(vw) / natural, 1.0 / widening);
    }
    set(r, ScheduleFeature::num_vectors, vw > 1 ? v.total / vw * per_vector : 0);
    double waste = 0;
    if (vw > 1) {
        int64_t padded = (v.inner_extent + vw - 1) / vw * vw;
        waste = double(padded - v.inner_extent) / double(padded);
    }
    set(r, ScheduleFeature::vector_tail_waste, waste);
    set(r, ScheduleFeature::unroll, v.sn.unroll);
    double unroll_outer = 1;
    for (const ConcreteLoop &c : v.sn.order)
        if (c.unrolled) unroll_outer *= double(c.extent);
    set(r, ScheduleFeature::unroll_outer_extent, unroll_outer);
    set(r, ScheduleFeature::innermost_extent, double(v.inner_extent));
    int64_t pure0 = 1;
    if (!v.fn.region.empty()) pure0 = v.fn.region[0].extent();
    set(r, ScheduleFeature::innermost_pure_extent, double(pure0));
    // An update's register tile (a block of vectors inside fully unrolled loops, its
    // accumulator in registers) is one straight-line body: the loop that runs is the RVar
    // loop outside it (depthwise_separable_conv's 8x4x3 tile runs its RVar loop once per 12
    // vectors, not once per vector). Pure stages keep one iteration per vector: counting
    // their unrolled rows as one body too moved camera_pipe's and iir_blur's picks (priced
    // within 0.8% of the old ones) onto schedules measured 8-12% slower, and interpolate's
    // beam lost its old pick's structure (2x slower), with no measured gain to set against.
    double straight = double(v.inner_extent);
    if (v.block && v.stage > 0 && v.accumulates_in_registers)
        for (int j = v.nl - 2; j >= 0 && v.sn.order[j].unrolled; j--)
            straight *= double(v.sn.order[j].extent);
    set(r, ScheduleFeature::inner_loop_iterations, v.total / std::max(1.0, straight));
}

/** Parallel tasks, idle cores, false sharing. */
void parallel_features(const StageView &v, ScheduleRow &r) {
    const double tasks = double(v.sn.parallel_tasks);
    const int P = std::max(1, v.dag.machine.parallelism);
    set(r, ScheduleFeature::parallel_tasks, tasks);
    set(r, ScheduleFeature::inside_parallel, v.fn.inside_parallel ? 1 : 0);
    set(r, ScheduleFeature::parallel_launches, tasks > 1 ? v.realizations : 0);
    double idle;
    if (v.fn.inside_parallel) {
        idle = 0;
    } else if (tasks > 1) {
        double rounds = std::ceil(tasks / P);
        idle = 1.0 - tasks / (rounds * P);
    } else {
        idle = double(P - 1) / P;
    }
    set(r, ScheduleFeature::idle_core_fraction, idle);
    double false_sharing = 0;
    if (tasks > 1) {
        // The innermost parallel loop: if a task covers less than a cache line of dim 0.
        int last_par = -1;
        for (size_t i = 0; i < v.sn.order.size(); i++)
            if (v.sn.order[i].parallel) last_par = int(i);
        const ConcreteLoop &pl = v.sn.order[last_par];
        if (v.s.loops[pl.stage_loop].func_dim == 0 && pl.span * v.f.bytes_per_point < 64)
            false_sharing = 1;
    }
    set(r, ScheduleFeature::false_sharing, false_sharing);
}

/** Whether `producer`, computed at a loop of another Func's nest, is read by `v`'s stage from
 * the tasks of a parallel loop inside that loop (the loops stay nested, each parallel, when a
 * Func is computed at the outer one: search/Directives.h): Halide's thread pool runs those
 * tasks on any core, so the buffer one core computed is read from the others' caches. Bench
 * nl_means' `output` in 96-row strips, `diff` (6 MB) computed per strip and its 16-column tiles
 * parallel inside: 25.8 ms against 18.9 with only the strips parallel (`sextant-autotune
 * --remeasure`, 3 rounds), priced alike before this rule. */
bool read_across_cores(const StageView &v, int producer) {
    const FuncSched &ps = v.d[size_t(producer)];
    const NestPtr &anchor = v.nests[size_t(ps.at_func)];
    if (!anchor || ps.at_stage >= int(anchor->stages.size())) return false;
    const StageNest &sn = anchor->stages[size_t(ps.at_stage)];
    // The consumer's level in the anchor's loops: all of them if it is the anchor's stage,
    // else the level its chain of compute_at anchors reaches the anchor at.
    int last = int(sn.order.size()) - 1;
    if (v.func == ps.at_func) {
        if (v.stage != ps.at_stage) return false;
    } else {
        int g = v.func;
        while (v.d[size_t(g)].placement == Placement::At && v.d[size_t(g)].at_func != ps.at_func)
            g = v.d[size_t(g)].at_func;
        const FuncSched &gs = v.d[size_t(g)];
        if (gs.placement != Placement::At || gs.at_stage != ps.at_stage) return false;
        last = gs.at_level;
    }
    for (int i = ps.at_level + 1; i <= last && i < int(sn.order.size()); i++)
        if (sn.order[size_t(i)].parallel) return true;
    return false;
}

/** The buffer the stage's Func allocates, what it reads per distinct producer, its working
 * sets and the bytes from memory. `streamed(kind, producer, bytes a point, cache bytes)`: the
 * stage's Featurizer::streamed_times, `by_sibling(kind, producer, bytes a point)` the hot part
 * of its Featurizer::sibling_reads (templates: no std::function allocated per row); `reread`: its
 * Featurizer::reread_bytes, read again within a realization. */
template <class Streamed, class BySibling>
void memory_features(const StageView &v, const std::vector<EffLoad> &loads,
                     const std::vector<ProducerRegion> &footprints,
                     const std::vector<ProducerRegion> &inner_footprints, const HeapGroups *groups,
                     const Streamed &streamed, const BySibling &by_sibling, double reread,
                     ScheduleRow &r) {
    const PipelineDag &dag = v.dag;
    const MachineInfo &m = dag.machine;
    const int P = std::max(1, m.parallelism);
    // Every stage writes the Func's one buffer; only the pure stage allocates it.
    const double alloc_bytes = v.fn.alloc_points * v.f.bytes_per_point;
    set(r, ScheduleFeature::bytes_per_point, v.f.bytes_per_point);
    set(r, ScheduleFeature::allocation_bytes, alloc_bytes);
    set(r, ScheduleFeature::num_allocations, v.stage == 0 ? v.fn.store_realizations : 0);

    double read_real = 0, read_total = 0, read_local = 0, read_root = 0, root_bytes = 0;
    // Root producers over the cache share read twice or more (below): size, bytes a point.
    SmallVec<std::tuple<const EffLoad *, double, int>, 4> large;
    const double cache_share = double(m.last_level_cache_bytes) / (v.fn.inside_parallel ? P : 1);
    double ws_inner = 0;
    SmallVec<std::pair<ProducerKind, int>, 16> seen; // (inline: per row)
    for (const EffLoad &l : loads) {
        if (l.self) continue;
        std::pair<ProducerKind, int> key{l.kind, l.producer};
        if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
        seen.push_back(key);
        int bpp = producer_bytes(dag, l.kind, l.producer);
        const Box64 *fp = find_region(footprints, l.kind, l.producer);
        const Box64 *fpi = find_region(inner_footprints, l.kind, l.producer);
        const Box64 none;
        double bytes = double(box_volume(fp ? *fp : none)) * bpp * v.slide;
        ws_inner += double(box_volume(fpi ? *fpi : none)) * bpp;
        read_total += bytes;
        // A Func computed at a loop (inside this Func, or beside it in a tile of the Func
        // that holds both) is read from its buffer while that buffer is hot: the realization
        // holds that buffer, not the whole footprint (a sliding window's few rows), and its
        // reads come from cache when the buffer fits this core's share of the last-level
        // cache. So is the part of a Root Func or an input that a Func computed at one of
        // this stage's loops has just read (SiblingReads::hot_part: the smallest such
        // part, 0 if none). A Func not yet placed has no buffer to find hot: counting one as
        // if at root tipped bench edge_detect's and camera_pipe_planar's beams onto column
        // strips measured 1.6x and 1.17x slower. The rest is read from memory.
        const bool at = l.kind == ProducerKind::Func &&
                        v.d[l.producer].placement == Placement::At && v.nests[l.producer];
        const bool placed_out =
            l.kind == ProducerKind::Input || v.d[l.producer].placement == Placement::Root;
        const double producer_buffer = at           ? v.nests[l.producer]->alloc_points * bpp
                                       : placed_out ? by_sibling(l.kind, l.producer, bpp)
                                                    : 0.0;
        const bool hot = producer_buffer > 0;
        // A buffer computed outside a parallel loop of its reader's is read by tasks on every
        // core: from the other cores' caches, not this one's (read_across_cores).
        const bool local = hot && producer_buffer * P <= double(m.last_level_cache_bytes) &&
                           !(at && read_across_cores(v, l.producer));
        read_real += hot ? std::min(bytes, producer_buffer) : bytes;
        if (local) {
            read_local += bytes * v.realizations;
        } else {
            read_root += bytes * v.realizations;
            const double size = double(box_volume(producer_bounds(dag, l.kind, l.producer))) * bpp;
            root_bytes += size;
            if (size > cache_share && bytes * v.realizations >= 2 * size)
                large.push_back({&l, size, bpp});
        }
    }
    read_total += reread;
    double ws_real = read_real + alloc_bytes;
    set(r, ScheduleFeature::bytes_read_per_realization, read_real);
    set(r, ScheduleFeature::total_bytes_read, read_total * v.realizations);
    set(r, ScheduleFeature::bytes_read_local, read_local);
    set(r, ScheduleFeature::bytes_read_root, read_root);
    set(r, ScheduleFeature::root_producer_bytes, root_bytes);
    set(r, ScheduleFeature::working_set_inner, ws_inner);
    set(r, ScheduleFeature::working_set_realization, ws_real);
    // A realization whose working set fits the cache reads each root producer from memory
    // once, unless a loop outside it streams the same part again (RootStreams.cpp).
    double dram = read_root;
    if (ws_real * (v.fn.inside_parallel ? P : 1) <= double(m.last_level_cache_bytes)) {
        double restreamed = 0;
        for (const auto &[l, size, bpp] : large)
            restreamed += size * (streamed(l->kind, l->producer, bpp, cache_share) - 1);
        dram = std::min(read_root, root_bytes + restreamed);
    }
    set(r, ScheduleFeature::dram_bytes, dram);
    set(r, ScheduleFeature::page_faults,
        v.stage == 0 ? page_faults_per_run(dag, v.d, v.nests, v.func, groups) : 0);
}

} // namespace

ScheduleRow Featurizer::schedule_features(const Decisions &d, const Nests &nests, int func,
                                          int stage, const HeapGroups *groups) const {
    SEXTANT_ASSERT(func >= 0 && size_t(func) < dag_.funcs.size() && stage >= 0 &&
                       size_t(stage) < dag_.funcs[size_t(func)].stages.size(),
                   "schedule_features of stage " + std::to_string(stage) + " of Func " +
                       std::to_string(func) + ": no such stage");
    const StageView v(dag_, d, nests, func, stage, widest_type_bytes_[stage_id(func, stage)]);
    ScheduleRow r{};
    point_and_vector_features(v, r);
    parallel_features(v, r);
    // The stage's loads through inlined Funcs, with their index clamps and arithmetic.
    thread_local std::vector<int64_t> key; // (no allocation once it has grown)
    inline_key(d, v.s, key);
    const std::shared_ptr<const StageLoads> loads = stage_loads(key, d, v.s);
    const StageLoads &sl = *loads;
    // arith_ops counted each scalarized call once per vector: the other lanes' calls.
    const double ops = sl.ops + (v.vw > 1 ? sl.trans * (v.vw - 1) : 0.0);
    const double inner_clamp_kept = op_features(v, sl.clamps, ops, r);
    access_features(v, sl.loads, inner_clamp_kept, r);
    // What the stage reads over its whole loop nest, and over one iteration of the loop
    // outside the innermost (the inner working set).
    const StageNest &sn = v.sn;
    const Box64 inner_box =
        sn.order.size() >= 2 ? box_at_level(sn, int(sn.order.size()) - 2) : sn.loop_box;
    auto streamed = [&](ProducerKind kind, int producer, int bpp, double cache_bytes) {
        return streamed_times(d, nests, func, v.s, key, sl, kind, producer, bpp, cache_bytes);
    };
    const std::shared_ptr<const std::vector<ProducerRegion>> whole =
        footprints(key, d, v.s, sn.loop_box);
    // Gathered at the first read of a Root Func or an input, once for all of them.
    std::optional<SiblingReads> siblings;
    auto by_sibling = [&](ProducerKind kind, int producer, int bpp) {
        if (!siblings) siblings = sibling_reads(d, nests, func, stage, v.s, sn, key);
        return siblings->hot_part(kind, producer, bpp);
    };
    memory_features(v, sl.loads, *whole, *footprints(key, d, v.s, inner_box), groups, streamed,
                    by_sibling, reread_bytes(d, v.s, sn, key, sl, *whole), r);
    return r;
}

} // namespace sextant
