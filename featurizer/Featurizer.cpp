#include "Featurizer.h"

#include "StageLoads.h"
#include "search/State.h"
#include "support/SmallVec.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <utility>

namespace sextant {

namespace {

int producer_bytes(const PipelineDag &dag, ProducerKind kind, int id) {
    return kind == ProducerKind::Func ? dag.funcs[id].bytes_per_point
                                      : type_class_bytes(dag.inputs[id].type);
}

const Box64 &producer_bounds(const PipelineDag &dag, ProducerKind kind, int id) {
    return kind == ProducerKind::Func ? dag.funcs[id].bounds : dag.inputs[id].bounds;
}

} // namespace

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

/** What the parts of schedule_features share about one stage of one schedule: its nest, how
 * many points it computes, and how its innermost loops run (vectors, an unrolled block). */
struct StageView {
    const PipelineDag &dag;
    const Decisions &d;
    const Nests &nests;
    int func, stage;
    const FuncNode &f;
    const Stage &s;
    const FuncNest &fn;
    const StageNest &sn;
    int K;  ///< the stage's loops
    int nl; ///< loops of its order
    double realizations, points, total;
    /** With a sliding window each point is computed once per storage realization: the
     * fraction of the nest's points that are computed (more than 1 where a split along the
     * sliding dimension rounds each step up: split_slide_rounding). */
    double slide = 1.0;
    int vw;
    /** Bytes of the widest type the stage's own operations use (OpHistogram, per stage). */
    int widest_type_bytes;
    int64_t inner_extent;
    /** A vector loop no longer than width x unroll is no loop at all but one block of
     * vectors, which accesses hoist past. */
    bool block;
    /** Hardware vectors per vector of `vw` lanes (vw may be a multiple of the natural width). */
    double pieces;
    /** An update's accumulator is promoted to registers when its whole realization is a small
     * constant-size buffer (computed in a tile): LLVM unrolls the short loops over it and
     * keeps it in registers across every RVar loop, whatever the order of pure and RVar loops
     * (matmul's 16x8 tile with k outermost: no load or store of the accumulator per k).
     * Budget: three quarters of the vector register file (16 registers; 32 with AVX-512). */
    bool accumulates_in_registers;

    StageView(const PipelineDag &dag_, const Decisions &d_, const Nests &nests_, int func_,
              int stage_, int widest_type_bytes_)
        : dag(dag_), d(d_), nests(nests_), func(func_), stage(stage_), f(dag.funcs[func]),
          s(f.stages[stage]), fn(*nests[func]), sn(fn.stages[stage]), K(int(s.loops.size())),
          nl(int(sn.order.size())), widest_type_bytes(widest_type_bytes_) {
        realizations = fn.realizations;
        points = double(box_volume(sn.loop_box));
        total = realizations * points;
        if (fn.sliding && total > 0) {
            double slid =
                fn.store_realizations * double(box_volume(stage_loop_box(s, fn.store_region)));
            // (The rounding may exceed the nest's own count, which does not round a window up.)
            slide = std::min(1.0, slid / total) *
                    split_slide_rounding(d[func].stages[size_t(stage_)], s, fn);
            total *= slide;
            points *= slide;
        } else {
            const double r = split_rounding(s, d[func].stages[size_t(stage_)], sn.loop_box);
            total *= r;
            points *= r;
        }
        vw = sn.vector_width;
        inner_extent = sn.order.empty() ? 1 : sn.order.back().extent;
        block = vw > 1 && nl > 0 && sn.order[nl - 1].extent <= int64_t(vw) * sn.unroll;
        pieces = vw > 1 ? std::ceil(double(vw) / dag.machine.natural_vector_lanes(f)) : 1.0;
        const MachineInfo &m = dag.machine;
        const double register_file_bytes =
            m.vector_bits / 8.0 * (m.vector_bits >= 512 ? 32 : 16) * 0.75;
        accumulates_in_registers = fn.stages.size() > 1 && d[func].placement == Placement::At &&
                                   fn.alloc_points * f.bytes_per_point <= register_file_bytes;
    }

    /** Hoisting: an access whose address does not change with the innermost loops of the
     * order is executed once per iteration of the innermost loop it depends on (LLVM hoists
     * it, or the unrolled copies share it). Executions of an access site (one per iteration of
     * the loops it depends on, times its copies in an unrolled block), given which stage loops
     * its address depends on. */
    double sites_of(const std::function<bool(int)> &depends_on, double count) const {
        double inner_iters = 1; // points covered by the inner loops the access is invariant in
        double copies = 1;      // distinct copies in an unrolled block
        // A loop unrolled inside the vectors (StageSched::unrolled_inside) is innermost, not
        // where the order has it: its copies share what does not move with it.
        const int inside = d[func].stages[size_t(stage)].unrolled_inside;
        if (inside >= 0 && !depends_on(inside)) inner_iters = double(sn.loop_box[inside].extent());
        auto moved = [&](int j) { return sn.order[size_t(j)].stage_loop == inside; };
        int j = nl - 1;
        if (block) {
            inner_iters *= double(sn.order[nl - 1].extent);
            // The unrolled loops just outside it are one block too.
            for (j = nl - 2; j >= 0 && sn.order[j].unrolled; j--) {
                inner_iters *= double(sn.order[j].extent);
                if (depends_on(sn.order[j].stage_loop)) copies *= double(sn.order[j].extent);
            }
        }
        for (; j >= 0; j--) {
            if (moved(j)) continue;
            if (depends_on(sn.order[j].stage_loop)) break;
            inner_iters *= double(sn.order[j].extent);
        }
        return total / std::max(1.0, inner_iters) * count * copies;
    }
};

void set(ScheduleRow &r, ScheduleFeature f, double v) {
    r[int(f)] = v;
}

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

/** Arithmetic per point: the stage's own and its inlined Funcs' (`ops`), plus the index
 * clamps (DagBuilder's Load::clamps). One that moves with the innermost loop is work per
 * point, unless it is a `likely` boundary clamp and that loop is long and whole: Halide's
 * loop partitioning then runs the loop's steady state without it (the interior access the
 * Jacobian already describes). Any other is hoisted out of the loops it does not move with,
 * like a load's address.
 *
 * Partitioning is nested: Halide splits an outer loop that a `likely` clamp moves with into a
 * prologue, a steady state and an epilogue, and partitions the inner loops again only in the
 * steady state (the prologue's and epilogue's copies keep every clamp). So the inner loop's
 * credit holds only where each outer loop a likely clamp moves with (the outermost such loop
 * of each clamp) has a steady state. One with at most two iterations has none when the clamp
 * is active at both ends: a 16-row dimension split by 12 runs every vector of the stage with
 * the clamps (random pipeline 100272: 12.0 ms measured against 1.8 ms with the boundary Func
 * at root, priced 5.3 and 6.1 before). Longer loops get the whole credit: charging their first
 * and last iterations as well, (n - 2) / n, ranked the faithful corpus worse (pairwise 0.7308
 * against 0.7316; this rule: 0.7330), as per-realization loops of Funcs at root rarely touch
 * an edge the clamp is active at, and the DAG does not say which clamps are.
 *
 * A window sliding inside another's loops is computed in such copies too: its steps in the
 * first and last iterations of the consumer loop Halide partitions (clamp_edge_share).
 *
 * Returns the share of the stage's points where a clamp moving with the vector loop stays in
 * its body (0: nowhere, 1: everywhere). */
double op_features(const StageView &v, const std::vector<IndexClamp> &clamps, double ops,
                   ScheduleRow &r) {
    const int nl = v.nl, vw = v.vw;
    const double native = vw > 1 ? v.total / vw * v.pieces : v.total; // vectors (or points)
    const int index_bytes = 4;                                        // Int(32) index arithmetic
    const double index_wide =
        std::max(1.0, double(index_bytes) / double(std::max(1, v.f.bytes_per_point)));
    // Only a whole loop is credited: in the inner part of a split the clamp stayed (bench
    // nl_means with repeat_edge inlined into `diff`, a 128-point split of x inside the patch
    // sums: 90 ms vs 34 ms with repeat_edge at root, both priced ~50 ms with the credit).
    const bool whole_inner = nl > 0 && v.d[size_t(v.func)]
                                               .stages[size_t(v.stage)]
                                               .loops[size_t(v.sn.order[nl - 1].stage_loop)]
                                               .mode != LoopMode::Split;
    bool long_inner = whole_inner && v.inner_extent >= 4 * std::max(vw, 4);
    // At root, Halide partitions the outer part of a split vector loop: its steady iterations
    // run whole inner parts without the clamp (random pipeline 100288's `mirror_image$1`, x
    // split by 128: `-e stmt` reads `guard[ramp(...)]` in the steady `x_o` loop), given one
    // (an outer part of at most two iterations touches an edge in each).
    if (!whole_inner && nl > 0 && v.d[size_t(v.func)].placement == Placement::Root) {
        const int inner_loop = v.sn.order[nl - 1].stage_loop;
        for (int i = 0; i < nl - 1; i++) {
            const ConcreteLoop &l = v.sn.order[size_t(i)];
            if (l.stage_loop == inner_loop && l.outer_part && !l.band_part && !l.unrolled)
                long_inner = l.extent > 2;
        }
    }
    // Whether an outer loop a likely clamp moves with has no steady state (see above).
    bool no_steady_state = false;
    if (long_inner && v.d[size_t(v.func)].placement == Placement::Root) {
        // (A Func computed inside another's loops: its tiles at the image's edge are few, and
        // Halide's prologue is empty in the others.)
        const int inner_loop = v.sn.order[nl - 1].stage_loop;
        for (const IndexClamp &c : clamps) {
            if (!c.likely || c.moves[size_t(inner_loop)]) continue;
            for (int i = 0; i < nl - 1; i++) {
                const ConcreteLoop &l = v.sn.order[size_t(i)];
                if (!c.moves[size_t(l.stage_loop)] || l.unrolled) continue;
                no_steady_state |= l.extent <= 2;
                break; // the outermost loop it moves with is the one partitioned
            }
        }
    }
    // Only where a partitioned clamp needs it: this runs for every featurized stage.
    double edge = -1;
    double inner_clamp_kept = 0;
    for (const IndexClamp &c : clamps) {
        const bool moves_inner = nl > 0 && c.moves[size_t(v.sn.order[nl - 1].stage_loop)];
        if (moves_inner) {
            // Halide marks a clamp of a ramp in a load's index likely itself (partition_loops
            // runs after vectorization): a plain clamp of the vector loop's variable is
            // partitioned too (random pipelines' input guards, `in(clamp(x, 0, w - 1))`: a
            // steady loop reads `in[ramp(...)]` in `-e stmt`).
            const bool likely = c.likely || vw > 1;
            const bool partitioned = likely && long_inner && !no_steady_state;
            if (partitioned && edge < 0)
                edge = clamp_edge_share(v.dag, v.d, v.nests, v.func, v.s, clamps);
            const double kept = partitioned ? edge : 1.0;
            inner_clamp_kept = std::max(inner_clamp_kept, kept);
            ops += c.count * index_wide * kept;
        } else if (native > 0) {
            auto moves = [&](int loop) { return bool(c.moves[size_t(loop)]); };
            ops += v.sites_of(moves, c.count) / native;
        }
    }
    set(r, ScheduleFeature::ops_per_point, ops);
    set(r, ScheduleFeature::total_ops, ops * v.total);
    return inner_clamp_kept;
}

/** Loads by kind and how often each executes, and the bytes stored. */
void access_features(const StageView &v, const std::vector<EffLoad> &loads, double inner_clamp_kept,
                     ScheduleRow &r) {
    const StageNest &sn = v.sn;
    const int nl = v.nl, vw = v.vw, K = v.K;
    const double total = v.total, pieces = v.pieces;
    // The vector loop is the innermost loop of the order.
    const int vloop = sn.order.empty() ? -1 : sn.order.back().stage_loop;
    // Points of this stage excluding its RVar loops: accumulator accesses when promoted.
    double rvar_iters = 1;
    for (int i = 0; i < K; i++)
        if (v.s.loops[i].is_rvar)
            rvar_iters *= double(std::max<int64_t>(1, sn.loop_box[i].extent()));
    const double pure_points = total / rvar_iters;
    double lpp = 0, dense = 0, strided = 0, bcast = 0;
    double dense_exec = 0, gather_exec = 0, bcast_exec = 0;
    for (const EffLoad &l : loads) {
        lpp += l.count;
        bool depends_on_vector = nl > 0 && l.depends_on(sn.order[nl - 1].stage_loop);
        auto [zero, unit, short_stride] = vector_access(l, vloop, K);
        // A clamped index that stays in the vector loop's body (see op_features) makes the
        // lanes' addresses a clamp of a ramp: a gather, not a dense load; where it stays in a
        // share of the points only, that share gathers.
        double kept = vloop >= 0 && l.clamp_moves[size_t(vloop)] ? inner_clamp_kept : 0.0;
        if (kept >= 1 || (!unit && short_stride == 0)) {
            unit = false;
            short_stride = 0;
            kept = 0;
        }
        if (vw <= 1 || zero) {
            bcast += zero && vw > 1 ? l.count : 0;
            if (vw <= 1) dense += l.count;
        } else if (unit) {
            dense += l.count;
        } else {
            strided += l.count;
        }
        if (l.self && v.accumulates_in_registers) {
            // Promoted: loaded once per pure point of each realization (see above).
            const double execs = pure_points * l.count;
            if (vw > 1 && depends_on_vector && unit)
                dense_exec += execs / vw * pieces;
            else if (vw > 1 && depends_on_vector)
                gather_exec += execs;
            else if (vw > 1)
                bcast_exec += execs / vw;
            else
                dense_exec += execs;
            continue;
        }
        // A gather from a table that stays in the core's L1 (a lookup table of at most
        // kL1TableBytes) costs half a lane: bench camera_pipe's 1 KiB tone curve at root,
        // gathered per output lane, ran 9.06 ms against 11.65 with the curve's pow inlined
        // (5 interleaved rounds, AVX-512), and was priced dearer at a full lane each.
        // (Sized only where a gather is charged: this runs per load of every candidate.)
        auto lane = [&] {
            const double table = double(box_volume(producer_bounds(v.dag, l.kind, l.producer))) *
                                 producer_bytes(v.dag, l.kind, l.producer);
            return table <= kL1TableBytes ? kL1TableGatherLane : 1.0;
        };
        // Otherwise the accumulator is loaded and stored by every reduction step that runs
        // inside its pure loops.
        auto depends = [&](int loop) {
            return l.depends_on(loop) || (l.self && v.s.loops[loop].is_rvar);
        };
        const double sites = v.sites_of(depends, l.count);
        auto add = [&](bool unit, double short_stride, double share) {
            const double n = sites * share;
            if (v.block) {
                // Each site is one block: its vectors (if the address moves with the lanes).
                double vectors = std::ceil(double(sn.order[nl - 1].extent) / vw);
                if (!depends_on_vector)
                    bcast_exec += n;
                else if (unit)
                    dense_exec += n * vectors * pieces;
                else if (short_stride > 0)
                    dense_exec += n * vectors * pieces * short_stride;
                else
                    gather_exec += n * vectors * vw * lane();
            } else if (vw > 1 && depends_on_vector) {
                if (unit)
                    dense_exec += n / vw * pieces;
                else if (short_stride > 0)
                    dense_exec += n / vw * pieces * short_stride;
                else
                    gather_exec += n * lane();
            } else if (vw > 1) {
                bcast_exec += n; // invariant across lanes: one broadcast per execution
            } else {
                dense_exec += n;
            }
        };
        add(unit, short_stride, 1 - kept);
        if (kept > 0) add(false, 0, kept);
    }
    set(r, ScheduleFeature::dense_load_executions, dense_exec);
    set(r, ScheduleFeature::gather_lane_executions, gather_exec);
    set(r, ScheduleFeature::broadcast_load_executions, bcast_exec);
    set(r, ScheduleFeature::loads_per_point, lpp);
    set(r, ScheduleFeature::dense_loads_per_vector, dense);
    set(r, ScheduleFeature::strided_loads_per_vector, strided);
    set(r, ScheduleFeature::broadcast_loads_per_vector, bcast);
    // The store to f(pure vars) moves only with the pure loops: an update accumulating over
    // inner RVar loops stores once per pure point (the value stays in a register).
    double stored_points = total;
    if (v.stage > 0 && v.accumulates_in_registers) {
        stored_points = std::min(total, pure_points);
    } else if (v.stage > 0) {
        auto pure = [&](int loop) {
            return v.s.loops[loop].func_dim >= 0 || v.s.loops[loop].is_rvar;
        };
        double sites = v.sites_of(pure, 1.0);
        double lanes = v.block ? double(sn.order[nl - 1].extent) : 1.0;
        stored_points = std::min(total, sites * lanes);
    }
    set(r, ScheduleFeature::bytes_written, stored_points * v.f.bytes_per_point);
}

/** The buffer the stage's Func allocates, what it reads per distinct producer, its working
 * sets and the bytes from memory. `streamed(kind, producer, bytes a point, cache bytes)`: the
 * stage's Featurizer::streamed_times (a template: no std::function allocated per row). */
template <class Streamed>
void memory_features(const StageView &v, const std::vector<EffLoad> &loads,
                     const std::vector<ProducerRegion> &footprints,
                     const std::vector<ProducerRegion> &inner_footprints, const HeapGroups *groups,
                     const Streamed &streamed, ScheduleRow &r) {
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
        // cache. A Root Func or an input is read from memory as before.
        const bool at = l.kind == ProducerKind::Func &&
                        v.d[l.producer].placement == Placement::At && v.nests[l.producer];
        const double producer_buffer = at ? v.nests[l.producer]->alloc_points * bpp : 0;
        const bool local = at && producer_buffer * P <= double(m.last_level_cache_bytes);
        read_real += at ? std::min(bytes, producer_buffer) : bytes;
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
    memory_features(v, sl.loads, *footprints(key, d, v.s, sn.loop_box),
                    *footprints(key, d, v.s, inner_box), groups, streamed, r);
    return r;
}

} // namespace sextant
