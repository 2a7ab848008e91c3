// The stage's arithmetic and loads: index clamps Halide keeps or partitions away, and how each
// load executes (dense, gathered, broadcast, hoisted). See StageView.h.
#include "StageView.h"

#include "support/SmallVec.h"

#include <algorithm>
#include <cmath>

namespace sextant {

namespace {

/** The share of a vector loop's points in its dimension's last vector. Partitioned, a clamp
 * still runs there: the steady state stops where Halide cannot prove the vector clear of the
 * clamp's bound, and the epilogue gathers (random pipeline 101825's output, x of 341 points in
 * vectors of 64: `-e stmt` shows an epilogue loading `guard[t + x64(...)]`). One vector of the
 * Func's whole extent in that dimension: a Func computed per tile pays it in the tiles at the
 * edge only, where the epilogue is not empty. (docs/COSTMODEL.md, "The last vector": the
 * faithful corpus ranks better so than with none or two.) */
double last_vector_share(const StageView &v) {
    if (v.vw <= 1 || v.nl <= 0) return 0.0;
    const int vloop = v.sn.order[size_t(v.nl - 1)].stage_loop;
    const int vdim = v.s.loops[size_t(vloop)].func_dim;
    const double span = double(vdim >= 0 ? v.f.bounds[size_t(vdim)].extent()
                                         : v.sn.loop_box[size_t(vloop)].extent());
    return 1.0 / std::ceil(span / v.vw);
}

} // namespace

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
    // Halide partitions the outer part of a split vector loop: its steady iterations run
    // whole inner parts without the clamp (random pipeline 100288's `mirror_image$1` at root,
    // x split by 128: `-e stmt` reads `guard[ramp(...)]` in the steady `x_o` loop), given one
    // (an outer part of at most two iterations touches an edge in each). So does a Func
    // computed inside another's loops (bench/experiments/partition_steady_state, `sc2.cpp`),
    // but credited there only for the shared clamps that need it (reads_inside, below):
    // crediting every clamp of such Funcs led random pipeline 762's search to a schedule
    // Halide took over 600 s to compile.
    bool long_outer_part = false;
    if (!whole_inner && nl > 0 && v.d[size_t(v.func)].placement != Placement::Inline) {
        const int inner_loop = v.sn.order[nl - 1].stage_loop;
        for (int i = 0; i < nl - 1; i++) {
            const ConcreteLoop &l = v.sn.order[size_t(i)];
            if (l.stage_loop == inner_loop && l.outer_part && !l.band_part && !l.unrolled)
                long_outer_part = l.extent > 2;
        }
        if (v.d[size_t(v.func)].placement == Placement::Root) long_inner = long_outer_part;
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
    // The share of points a partitioned clamp stays in (a sliding window's edge strips, or
    // the last vector), only where one needs it: this runs for every featurized stage.
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
            // A clamp shared by several loads stays in every iteration (IndexClamp::shared)
            // but where they read a buffer computed in a split's outer loop (reads_inside).
            const bool long_loop = long_inner || (c.shared && c.reads_inside && long_outer_part);
            const bool partitioned = likely && long_loop && !no_steady_state &&
                                     !(c.shared && (whole_inner || !c.reads_inside));
            if (partitioned && edge < 0)
                edge = std::max(clamp_edge_share(v.dag, v.d, v.nests, v.func, v.s, clamps),
                                last_vector_share(v));
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

} // namespace sextant
