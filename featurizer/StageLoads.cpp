#include "StageLoads.h"

#include "search/LoopNest.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace sextant {

namespace {

/** Arithmetic work per point in simple-instruction units (op_kind_cost), each operation on a
 * type wider than `point_bytes` (the computing stage's own values) counted once per vector of
 * that width it takes: box_blur's 16-bit output summing 32-bit values does twice the vector
 * instructions per output vector. */
double arith_ops(const OpHistogram &h, int point_bytes) {
    double n = 0;
    for (int k = 0; k < kNumOpKinds; k++) {
        for (int t = 0; t < kNumTypeClasses; t++) {
            const int32_t c = h.counts[size_t(k * kNumTypeClasses + t)];
            if (c == 0) continue;
            const double wide = std::max(1.0, double(type_class_bytes(TypeClass(t))) /
                                                  double(std::max(1, point_bytes)));
            n += op_kind_cost(OpKind(k)) * double(c) * wide;
        }
    }
    return n;
}

/** The scalarized transcendental calls of a point (Stage::scalarized_calls: sin, cos, ...), in
 * op_kind_cost units per lane: Halide 14 on x86 calls libm once for each lane. */
double scalarized_call_ops(const Stage &s) {
    return op_kind_cost(OpKind::Transcendental) * double(s.scalarized_calls);
}

/** Jacobians equal entry for entry, NaN (not affine) equal to NaN. */
bool same_jacobian(const std::vector<double> &a, const std::vector<double> &b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void add_load(StageLoads &out, EffLoad l) {
    for (EffLoad &o : out.loads) {
        if (o.kind == l.kind && o.producer == l.producer && o.self == l.self &&
            o.clamp_moves == l.clamp_moves && same_jacobian(o.jac, l.jac)) {
            o.count += l.count;
            return;
        }
    }
    out.loads.push_back(std::move(l));
}

void add_clamp(StageLoads &out, const IndexClamp &c) {
    for (IndexClamp &o : out.clamps) {
        if (o.moves == c.moves && o.likely == c.likely && o.shared == c.shared &&
            o.reads_inside == c.reads_inside) {
            o.count += c.count;
            return;
        }
    }
    out.clamps.push_back(c);
}

/** Adds `from`, every count and op times `mult`. */
void add_scaled(StageLoads &out, const StageLoads &from, double mult) {
    out.ops += mult * from.ops;
    out.trans += mult * from.trans;
    for (const EffLoad &l : from.loads) {
        EffLoad m = l;
        m.count *= mult;
        add_load(out, std::move(m));
    }
    for (const IndexClamp &c : from.clamps)
        add_clamp(out, {c.moves, c.count * mult, c.likely, c.shared, c.reads_inside});
}

/** How an index clamp moving with `moves`, in a call of an inlined Func whose loads (per call)
 * are `inner`, is shared (IndexClamp::shared, reads_inside): whether it feeds two or more
 * loads, and whether every one it feeds reads a Func computed at a loop of `root_func`. Taps
 * alike but for their offsets are one entry of `inner` with their count summed (add_load), so
 * the count says it. */
std::pair<bool, bool> shared_clamp(const Decisions &d, int root_func, const StageLoads &inner,
                                   LoopSet moves) {
    double fed = 0;
    bool inside = true;
    for (const EffLoad &e : inner.loads)
        for (int j = 0; j < e.root_loops; j++)
            if (moves[size_t(j)] && e.depends_on(j)) {
                fed += e.count;
                inside &= e.kind == ProducerKind::Func &&
                          d[size_t(e.producer)].placement == Placement::At &&
                          d[size_t(e.producer)].at_func == root_func;
                break;
            }
    return {fed >= 2, fed >= 2 && inside};
}

/** One walk of an inlined Func's body, per unit of its calls: reached again with the same
 * Jacobian and clamps, it is added again instead of walked. */
struct Walked {
    int func;
    std::vector<double> dloop;
    LoopSet path_clamps;
    StageLoads loads;
};

class LoadWalker {
public:
    LoadWalker(const PipelineDag &dag, const Decisions &d, int root_func, int K)
        : dag_(dag), d_(d), root_func_(root_func),
          point_bytes_(dag.funcs[size_t(root_func)].bytes_per_point), K_(K) {}

    /** Walks the loads of `s`, where d(s's loop i)/d(root stage loop j) = dloop[i * K + j],
     * counting each once per point of the root stage. */
    void walk(const Stage &s, const std::vector<double> &dloop, LoopSet path_clamps,
              StageLoads &out) {
        const int K = K_;
        out.ops += arith_ops(s.ops, point_bytes_);
        out.trans += scalarized_call_ops(s);
        for (const Load &l : s.loads) {
            std::vector<double> dp(size_t(l.producer_dims) * K, 0.0);
            LoopSet clamp_moves = path_clamps;
            SmallVec<LoopSet, 8> moves(size_t(l.producer_dims)); // (no allocation)
            for (int p = 0; p < l.producer_dims; p++) {
                for (int i = 0; i < l.loop_dims; i++) {
                    const JacobianEntry &je = l.at(p, i);
                    for (int j = 0; j < K; j++) {
                        double dl = dloop[size_t(i) * K + j];
                        if (dl == 0) continue;
                        double &out_pj = dp[size_t(p) * K + j];
                        out_pj = je.affine ? out_pj + double(je.num) / double(je.den) * dl : NAN;
                        if (!je.affine || je.num != 0) moves[size_t(p)].set(size_t(j));
                    }
                }
                if (l.clamps_at(p) > 0) clamp_moves |= moves[size_t(p)];
            }
            const StageLoads *inner_loads = nullptr;
            if (l.kind == ProducerKind::Func && !l.self && is_inlined(dag_, d_, l.producer)) {
                const Stage &inner = dag_.stage(l.producer, 0);
                std::vector<double> dl(inner.loops.size() * K, 0.0);
                for (size_t i = 0; i < inner.loops.size(); i++) {
                    int fd = inner.loops[i].func_dim;
                    if (fd < 0 || fd >= l.producer_dims) continue;
                    for (int j = 0; j < K; j++)
                        dl[i * K + j] = dp[size_t(fd) * K + j];
                }
                inner_loads = &inlined(l.producer, inner, std::move(dl), clamp_moves);
            }
            for (int p = 0; p < l.producer_dims; p++) {
                if (l.clamps_at(p) == 0) continue;
                const LoopSet m = moves[size_t(p)];
                const auto [shared, inside] = inner_loads
                                                  ? shared_clamp(d_, root_func_, *inner_loads, m)
                                                  : std::pair<bool, bool>{false, false};
                // Through `x / 2` the shared index stays a vector in every part.
                bool whole_steps = true;
                for (int j = 0; j < K; j++) {
                    const double step = dp[size_t(p) * K + j];
                    whole_steps &= !m[size_t(j)] || step == std::floor(step); // (not NaN)
                }
                add_clamp(out, {m, double(l.count) * l.clamps_at(p), l.likely_at(p), shared,
                                inside && whole_steps});
            }
            if (inner_loads) {
                add_scaled(out, *inner_loads, double(l.count));
            } else {
                add_load(out, {l.kind, l.producer, l.self, double(l.count), std::move(dp), K,
                               clamp_moves});
            }
        }
    }

private:
    /** The loads of one call of inlined `func` whose loops move as `dloop`. */
    const StageLoads &inlined(int func, const Stage &s, std::vector<double> dloop,
                              LoopSet path_clamps) {
        for (const Walked &w : walked_)
            if (w.func == func && w.path_clamps == path_clamps && same_jacobian(w.dloop, dloop))
                return w.loads;
        StageLoads loads;
        walk(s, dloop, path_clamps, loads);
        // (walk may have added to walked_: find nothing by reference across it.)
        walked_.push_back({func, std::move(dloop), path_clamps, std::move(loads)});
        return walked_.back().loads;
    }

    const PipelineDag &dag_;
    const Decisions &d_;
    const int root_func_, point_bytes_, K_;
    std::vector<Walked> walked_;
};

} // namespace

StageLoads collect_stage_loads(const PipelineDag &dag, const Decisions &d, const Stage &s) {
    const int K = int(s.loops.size());
    std::vector<double> dloop(size_t(K) * K, 0.0);
    for (int i = 0; i < K; i++)
        dloop[size_t(i) * K + i] = 1.0;
    StageLoads out;
    LoadWalker(dag, d, s.func, K).walk(s, dloop, LoopSet{}, out);
    return out;
}

VectorAccess vector_access(const EffLoad &l, int vloop, int K) {
    VectorAccess a;
    // Per dimension of the producer (inline: this runs per row and load).
    SmallVec<double, 8> stride(l.jac.size() / std::max(1, K), 0.0);
    for (size_t p = 0; p < stride.size(); p++)
        stride[p] = vloop >= 0 ? l.at(int(p), vloop) : 0;
    bool rest_zero = true;
    for (size_t k = 0; k < stride.size(); k++) {
        double st = stride[k];
        if (std::isnan(st) || st != 0) a.zero = false;
        bool want = k == 0 ? 1.0 : 0.0;
        if (std::isnan(st) || st != want) a.unit = false;
        if (k > 0 && (std::isnan(st) || st != 0)) rest_zero = false;
    }
    // Halide 14 loads a short constant stride along the innermost dimension (2 to 4, or a
    // reversed ramp) as dense vectors and shuffles, not lane by lane: `f(2 * x + 1)` of a
    // downsample reads |stride| dense vectors and picks every other lane (vshufps / vpermps in
    // the assembly; strides of 5 and more are inserted lane by lane). Priced as twice |stride|
    // dense loads: the loads and the shuffles that pick the lanes. An upsample's `f(x / 2)` or
    // `f(x / 4)` (a stride of 1/2 or 1/4) is one narrower dense load and the unpacks that
    // repeat its lanes (vunpcklps / vunpckhps / vinsertf128): two dense loads. `f(x / 3)` is
    // inserted lane by lane, a gather.
    if (!a.unit && !a.zero && rest_zero && !stride.empty()) {
        const double st = std::fabs(stride[0]);
        if (st == std::floor(st) && st <= 4) a.short_stride = 2 * std::max(1.0, st);
        if (st == 0.5 || st == 0.25) a.short_stride = 2;
    }
    return a;
}

/** A sliding window computes only the new points of each step, but a stage loop split along
 * the dimension it slides in runs whole tiles: each step computes its new rows rounded up to
 * the split, the first step its whole window rounded up. Bench stencil_chain on AVX-512:
 * `stage_0` computed per output row and stored per 256-row strip, its y split by 8, computes
 * 8 rows at every row (`-e stmt`: `for (stage_0.s0.y.y_i, 0, 8)` inside the output's row
 * loop); Halide's profiler gives it 4.3 of 8.7 ms, against 0.38 ms at root. Returns the
 * factor by which that multiplies the points a storage realization computes (1: none). */
double split_slide_rounding(const StageSched &ss, const Stage &s, const FuncNest &fn) {
    if (fn.store_realizations <= 0) return 1.0;
    const double steps = fn.realizations / fn.store_realizations;
    double factor = 1.0;
    for (size_t i = 0; i < s.loops.size() && i < ss.loops.size(); i++) {
        const int k = s.loops[i].func_dim;
        const LoopTiling &t = ss.loops[i];
        if (k < 0 || t.mode != LoopMode::Split || t.tile <= 1) continue;
        const double window = double(fn.region[size_t(k)].extent());
        const double stored = double(fn.store_region[size_t(k)].extent());
        if (stored <= window || steps <= 1) continue; // it does not slide along k
        const double tile = double(t.tile);
        const double fresh = (stored - window) / (steps - 1);
        const double computed =
            std::ceil(window / tile) * tile + (steps - 1) * std::ceil(fresh / tile) * tile;
        factor *= std::max(1.0, computed / stored);
    }
    return factor;
}

double split_rounding(const Stage &s, const StageSched &ss, const Box64 &loop_box) {
    double factor = 1.0;
    for (size_t i = 0; i < ss.loops.size() && i < loop_box.size(); i++) {
        const LoopTiling &t = ss.loops[i];
        if (t.mode != LoopMode::Split || t.tile <= 1) continue;
        // A pure definition's splits shift inwards; an update's round up where annotated
        // (search/Tails.h, filled once per DAG), else they are guarded.
        const bool whole_tiles = s.index == 0 || (i < s.rounds_up.size() && s.rounds_up[i]);
        if (!whole_tiles) continue;
        const double n = double(loop_box[i].extent());
        const double tile = double(t.band > 0 ? t.band : t.tile);
        if (n > tile) factor *= std::ceil(n / tile) * tile / n;
    }
    return factor;
}

namespace {

/** True if Func `func`'s estimated region along dimension `dim` reaches past an input its
 * stage `s` reads (directly or through Halide's wrapper of it) in the same dimension: a clamp
 * of that coordinate is active at the region's edges. */
bool reaches_past_input(const PipelineDag &dag, int func, const Stage &s, int dim) {
    const Box64 &bounds = dag.funcs[size_t(func)].bounds;
    if (dim >= int(bounds.size())) return false;
    const Interval64 &own = bounds[size_t(dim)];
    for (const Load &l : s.loads) {
        const Box64 *read = nullptr; // what the pipeline can read of the input
        if (l.kind == ProducerKind::Input)
            read = &dag.inputs[size_t(l.producer)].buffer;
        else if (!l.self && dag.funcs[size_t(l.producer)].is_input_wrapper)
            read = &dag.funcs[size_t(l.producer)].bounds;
        if (!read || dim >= int(read->size())) continue;
        if (own.min < (*read)[size_t(dim)].min || own.max > (*read)[size_t(dim)].max) return true;
    }
    return false;
}

} // namespace

double clamp_edge_share(const PipelineDag &dag, const Decisions &d, const Nests &nests, int func,
                        const Stage &s, const std::vector<IndexClamp> &clamps) {
    const NestPtr &own = nests[size_t(func)];
    if (d[size_t(func)].placement != Placement::At || !own || !own->sliding) return 0;
    // The Func's own loops a likely clamp moves with.
    LoopSet moving;
    for (const IndexClamp &c : clamps)
        if (c.likely) moving |= c.moves;
    // The consumer levels enclosing the Func's storage, innermost first (the Func's own
    // storage level, then each anchor's compute level out to the root).
    struct Level {
        int func, stage, last;
    };
    SmallVec<Level, 8> chain;
    for (int g = func; d[size_t(g)].placement == Placement::At;) {
        const FuncSched &fs = d[size_t(g)];
        const NestPtr &cn = nests[size_t(fs.at_func)];
        if (!cn || fs.at_stage >= int(cn->stages.size())) break;
        chain.push_back({fs.at_func, fs.at_stage, g == func ? fs.storage_level() : fs.at_level});
        g = fs.at_func;
    }
    // For each loop a clamp moves with, the outermost enclosing consumer loop of its name
    // (outermost first: the root anchor's levels, then inward) is the one Halide partitions.
    // A Func whose variables are named otherwise (a boundary condition's `_0`, `_1`) is read
    // at the consumer's own coordinates: its dimension k moves with the consumer's pure
    // dimension k (bench box_blur's `repeat_edge` sliding down 256-row strips of `output`
    // ran 1.43x 32-row strips, its clamps kept in the first and last strips: `-e stmt`),
    // where its clamp is active at the edges: the Func reaches past the input it clamps
    // (not bench bloom's channels, which it covers exactly: there every strip is steady).
    auto outermost = [&](auto same) -> const ConcreteLoop * {
        for (size_t k = chain.size(); k-- > 0;) {
            const Level &lv = chain[k];
            const StageNest &sn = nests[size_t(lv.func)]->stages[size_t(lv.stage)];
            const Stage &cs = dag.stage(lv.func, lv.stage);
            for (int i = 0; i <= lv.last && i < int(sn.order.size()); i++) {
                const ConcreteLoop &l = sn.order[size_t(i)];
                if (same(cs.loops[size_t(l.stage_loop)]) && !l.unrolled && l.extent > 1) return &l;
            }
        }
        return nullptr;
    };
    // A Func that computes two or more new points a step along the dimension keeps its own
    // loop there, and Halide partitions that loop instead, inside each step (bench bloom's
    // `repeat_edge`, two new rows a step of `down_1`'s rows: `-e stmt` has its `_1` prologue
    // and epilogue, and every strip of `down_1` steady). Along the dimension it slides in, the
    // new points a step are its storage's extent over the steps; along any other, its region's.
    const double steps = own->realizations / std::max(1.0, own->store_realizations);
    auto fresh_per_step = [&](int dim) {
        const double stored = double(own->store_region[size_t(dim)].extent());
        const double computed = double(own->region[size_t(dim)].extent());
        return stored > computed ? stored / steps : computed;
    };
    double steady = 1;
    for (size_t j = 0; j < s.loops.size(); j++) {
        if (!moving[j]) continue;
        const LoopDim &own_loop = s.loops[j];
        const int fd = own_loop.func_dim;
        if (fd >= 0 && fd < int(own->store_region.size()) && fd < int(own->region.size()) &&
            fresh_per_step(fd) >= 2)
            continue;
        const ConcreteLoop *found =
            outermost([&](const LoopDim &c) { return c.name == own_loop.name; });
        if (!found && fd >= 0 && !own_loop.is_rvar && reaches_past_input(dag, func, s, fd))
            found = outermost([&](const LoopDim &c) { return !c.is_rvar && c.func_dim == fd; });
        if (found) steady *= 1 - std::min(1.0, 2.0 / double(found->extent));
    }
    return 1 - steady;
}

} // namespace sextant
