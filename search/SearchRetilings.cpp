// SearchSpace's re-tilings: the consumer of a Func tiled again for it, one more split or a
// register block, with the Func placed at the new loops (SearchSpaceOptions::retile_consumers,
// register_blocks).
#include "SearchSpace.h"
#include "SearchSpaceDetail.h"

#include <algorithm>
#include <functional>
#include <set>

namespace sextant {

namespace {

/** The re-tilings of one consumer stage for one Func, by kind. Each kind adds, in order,
 * states with the stage tiled anew and the Func placed at loops of the new order. */
class Retiler {
public:
    using ParallelLoops = std::function<int(const Stage &, const StageNest &, int)>;
    using Offered = std::vector<std::pair<StatePtr, FuncSched>>;

    Retiler(const PipelineDag &dag, const std::vector<int> &order, const State &s, int func,
            int consumer, int stage, const SearchSpaceOptions &opt, ParallelLoops parallel)
        : dag_(dag), order_(order), s_(s), func_(func), c_(consumer), stage_(stage), opt_(opt),
          parallel_(std::move(parallel)), old_(s.decisions[size_t(consumer)].stages[size_t(stage)]),
          st_(dag.stage(consumer, stage)), cn_(s.nests[size_t(consumer)]->stages[size_t(stage)]) {
        vec_loop_ =
            !cn_.order.empty() && cn_.order.back().vectorized ? cn_.order.back().stage_loop : -1;
        V_ = std::max(1, old_.vector_width) * std::max(1, old_.unroll);
    }

    const Offered &offered() const { return out_; }

    /** One more loop split (or moved outside): the Func at the new outer loop, and at the
     * innermost loop outside the new tile. Tiles: the vector loop in multiples of its
     * vectors, the others in rows or bands. */
    void one_more_split() {
        std::vector<int64_t> vector_tiles;
        for (int64_t vectors : opt_.retile_vector_splits.get(opt_.coarse))
            vector_tiles.push_back(vectors * V_);
        const std::vector<int64_t> &other_tiles = opt_.retile_split_factors.get(opt_.coarse);
        for (size_t i = 0; i < st_.loops.size(); i++) {
            const LoopDim &l = st_.loops[i];
            if (old_.loops[i].mode != LoopMode::Inner || l.is_rvar || l.func_dim < 0) continue;
            const int64_t E = cn_.loop_box[i].extent();
            std::vector<LoopTiling> modes;
            if (int(i) != vec_loop_ && E > 1) modes.push_back({LoopMode::Outer, 0});
            for (int64_t t : int(i) == vec_loop_ ? vector_tiles : other_tiles)
                if (2 * t <= E) modes.push_back({LoopMode::Split, t});
            for (const LoopTiling &t : modes) {
                StageSched sched = old_;
                sched.loops[i] = t;
                offer(sched, [&](const StageNest &nn) {
                    std::set<int> levels = outer_parts_of(nn, int(i));
                    if (innermost_outer(nn) >= 0) levels.insert(innermost_outer(nn));
                    return levels;
                });
            }
        }
    }

    /** A short pure loop (SearchSpaceOptions::retile_inside_max_points: colour channels) the
     * consumer keeps outside its tiles (LoopMode::Outer) brought inside them, with the Func
     * computed at the outer parts of the consumer's split loops: once per tile for every point
     * of that loop instead of once per point of it. Bench camera_pipe_planar: `curved` ran its
     * 3 channels outside its 2-row bands, so `linear` (which `curved` reads at all three
     * channels of a pixel through the colour matrix) computed there would have been computed
     * three times, and stayed inlined; with the channels inside the bands and `linear` per band
     * the schedule ran 37.0 ms against 66.5 (predicted 107.8 against 116.8 ms: the model saw
     * it, the consumer's tiling had been chosen before `linear` was placed). */
    void outer_loops_inside() {
        for (size_t i = 0; i < st_.loops.size(); i++) {
            const LoopDim &l = st_.loops[i];
            const int64_t E = cn_.loop_box[i].extent();
            if (old_.loops[i].mode != LoopMode::Outer || l.is_rvar || l.func_dim < 0 || E <= 1 ||
                E > opt_.retile_inside_max_points)
                continue;
            StageSched sched = old_;
            sched.loops[i] = {LoopMode::Inner, 0};
            offer(sched, [&](const StageNest &nn) {
                std::set<int> levels;
                for (size_t j = 0; j < st_.loops.size(); j++) {
                    if (sched.loops[j].mode != LoopMode::Split) continue;
                    std::set<int> parts = outer_parts_of(nn, int(j));
                    levels.insert(parts.begin(), parts.end());
                }
                return levels;
            });
        }
    }

    /** Multi-level tiling: a split loop of the consumer gets a band between its strip and its
     * tile (LoopTiling::band: strip -> band of 4 or 16 tiles -> tile), and the Func is
     * computed per band: a producer's tile sized for the cache inside a parallel strip, while
     * the consumer keeps its own (register-sized) tile. Offered here, where a Func can use
     * the new loop, not among every stage's tilings: there the model never picked one on the
     * bench and the extra tilings thinned out the ones it did (matmul's pick was dropped). */
    void bands() {
        for (size_t i = 0; i < st_.loops.size() && !opt_.coarse; i++) {
            const LoopTiling &t = old_.loops[i];
            if (t.mode != LoopMode::Split || t.band > 0 || st_.loops[i].is_rvar) continue;
            const int64_t E = cn_.loop_box[i].extent();
            for (int64_t tiles : opt_.band_tiles) {
                const int64_t b = tiles * t.tile;
                if (tiles < 2 || 2 * b > E) continue;
                StageSched sched = old_;
                sched.loops[i].band = b;
                offer(sched, [&](const StageNest &nn) {
                    std::set<int> levels;
                    for (int k = 0; k < int(nn.order.size()); k++)
                        if (nn.order[size_t(k)].band_part &&
                            nn.order[size_t(k)].stage_loop == int(i))
                            levels.insert(k);
                    return levels;
                });
            }
        }
    }

    /** Reduction splits: the consumer's outermost RVar split into chunks (the chunk loop in
     * the outer group, its inner part with the other RVars, all made Middle, just outside the
     * innermost pure loop), and the Func computed per chunk: depthwise results per 16 input
     * channels of a pointwise convolution. Only the outermost RVar: the RVars keep their
     * relative order, which Halide requires of a reduction. Only where the Func is read along
     * that RVar, and only with the Func at the chunk loop: among every stage's tilings the
     * model picked splits that bought nothing (bench matmul, `k$x:split4`, 2.1 ms against
     * 1.2-1.3 for k whole, priced 1% apart; depthwise_separable_conv 2.04 vs 1.60 ms). */
    void reduction_splits() {
        int outer_rvar = -1;
        for (size_t i = 0; i < st_.loops.size(); i++)
            if (st_.loops[i].is_rvar) outer_rvar = int(i);
        bool along_rvar = false;
        for (const Load &L : st_.loads) {
            if (outer_rvar < 0 || L.kind != ProducerKind::Func || L.producer != func_ ||
                L.loop_dims != int(st_.loops.size()))
                continue;
            for (int p = 0; p < L.producer_dims; p++) {
                const JacobianEntry &j = L.at(p, outer_rvar);
                along_rvar |= !j.affine || j.num != 0;
            }
        }
        if (!along_rvar || vec_loop_ < 0) return;
        const int64_t R = cn_.loop_box[size_t(outer_rvar)].extent();
        for (int64_t chunk : opt_.reduction_chunks.get(opt_.coarse)) {
            if (2 * chunk > R) continue;
            StageSched sched = old_;
            for (size_t i = 0; i < st_.loops.size(); i++)
                if (st_.loops[i].is_rvar || st_.loops[i].func_dim < 0)
                    sched.loops[i] = {LoopMode::Middle, 0};
            sched.loops[size_t(outer_rvar)] = {LoopMode::Split, chunk};
            offer(sched, [&](const StageNest &nn) { return outer_parts_of(nn, outer_rvar); });
        }
    }

    /** The consumer's reduction outside (SearchSpaceOptions::reduction_outside): its RVars
     * move to the outer group, so the Func is computed per iteration of the reduction, over
     * the whole tile of pure points: split pure loops keep their tiles outside the reduction,
     * whole ones go inside it. */
    void reduction_outside() {
        if (!opt_.reduction_outside) return;
        StageSched sched = old_;
        bool moved = false;
        bool reduces_here = false;
        for (size_t i = 0; i < st_.loops.size(); i++) {
            if (cn_.loop_box[i].extent() <= 1) continue;
            if (st_.loops[i].is_rvar) {
                reduces_here = true;
                if (old_.loops[i].mode == LoopMode::Outer) continue;
                sched.loops[i] = {LoopMode::Outer, 0};
                moved = true;
            } else if (old_.loops[i].mode == LoopMode::Outer) {
                // A whole pure loop outside the reduction would make the Func per point of
                // it: it goes inside, with the tile.
                sched.loops[i] = {LoopMode::Inner, 0};
                moved = true;
            }
        }
        if (moved && reduces_here) offer(sched, at_innermost_outer);
    }

    /** Register blocks (SearchSpaceOptions::register_blocks): a reduction computed per block
     * of its consumer small enough for its accumulators to stay in vector registers. The
     * vector loop is split to one vector, one or two more pure loops to a few points, every
     * other pure loop moves outside; the Func goes at the innermost loop outside the block. */
    void register_blocks() {
        bool reduces = false;
        for (const Stage &ps : dag_.funcs[func_].stages)
            for (const LoopDim &pl : ps.loops)
                reduces |= pl.is_rvar;
        bool consumer_reduces = false;
        for (size_t i = 0; i < st_.loops.size(); i++)
            consumer_reduces |= st_.loops[i].is_rvar && cn_.loop_box[i].extent() > 1;
        if (!opt_.register_blocks || !reduces || consumer_reduces || vec_loop_ < 0) return;
        const int W = std::max(1, old_.vector_width);
        if (cn_.loop_box[size_t(vec_loop_)].extent() < 2 * W) return;
        const int native = std::max(1, dag_.machine.vector_bits / 8 /
                                           std::max(1, dag_.funcs[func_].bytes_per_point));
        const int registers = dag_.machine.vector_bits >= 512 ? 32 : 16;
        // Accumulator vectors a block may hold: three quarters of the register file (the rest
        // hold the loaded operands), as the featurizer's accumulates_in_registers assumes.
        const int budget = registers * 3 / 4 / std::max(1, (W + native - 1) / native);
        // The block's other loops: the first two non-vector pure loops with more than one
        // point.
        std::vector<size_t> dims;
        for (size_t i = 0; i < st_.loops.size() && dims.size() < 2; i++)
            if (int(i) != vec_loop_ && !st_.loops[i].is_rvar && st_.loops[i].func_dim >= 0 &&
                cn_.loop_box[i].extent() > 1)
                dims.push_back(i);
        const std::vector<int64_t> &sizes = opt_.register_block_points.get(opt_.coarse);
        for (int64_t a : sizes) {
            for (int64_t b : dims.size() > 1 ? sizes : std::vector<int64_t>{1}) {
                if (a * b > budget || (a == 1 && b == 1)) continue;
                StageSched sched = old_;
                sched.unroll = 1;
                sched.unroll_outer = 0;
                for (size_t i = 0; i < st_.loops.size(); i++)
                    if (!st_.loops[i].is_rvar && st_.loops[i].func_dim >= 0 &&
                        cn_.loop_box[i].extent() > 1)
                        sched.loops[i] = {LoopMode::Outer, 0};
                bool fits = true;
                // Loop i gets t points of the block: one point is the whole loop outside it,
                // the whole extent is the whole loop inside it.
                auto block = [&](size_t i, int64_t t) {
                    const int64_t E = cn_.loop_box[i].extent();
                    if (t > E)
                        fits = false;
                    else if (t == E)
                        sched.loops[i] = {LoopMode::Inner, 0};
                    else if (t > 1)
                        sched.loops[i] = {LoopMode::Split, t};
                };
                block(size_t(vec_loop_), W);
                if (!dims.empty()) block(dims[0], a);
                if (dims.size() > 1) block(dims[1], b);
                if (fits) offer(sched, at_innermost_outer);
            }
        }
    }

    /** Sliding strips (SearchSpaceOptions::slide_strips): a Root consumer cut into parallel
     * strips along one pure loop, each strip's rows computed in order with the whole of the
     * other loops inside a row, and the Func stored per strip and computed per row, so
     * Halide slides its window down the strip: each point computed once, only the rows a
     * stencil still reads held (folded) in cache. Its producers can then slide in the same
     * rows (ordinary sites with storage further out). The structure expert schedules of
     * stencil chains use (bench harris, stencil_chain); a consumer's tiling is chosen before
     * its producers exist, when tall strips of whole rows buy it nothing, so the search never
     * reached it. Strips are at least `strip_rows` tall and at least one per core. */
    void strips() {
        if (!opt_.slide_strips || vec_loop_ < 0 || stage_ != 0) return;
        if (dag_.funcs[func_].stages.size() > 1) return; // never slides (Halide 14, #7909)
        if (s_.decisions[size_t(c_)].placement != Placement::Root || old_.parallel <= 0) return;
        const int64_t P = std::max(1, dag_.machine.parallelism);
        for (size_t i = 0; i < st_.loops.size(); i++) {
            const LoopDim &l = st_.loops[i];
            if (int(i) == vec_loop_ || l.is_rvar || l.func_dim < 0 || !l.parallel_safe) continue;
            const int64_t E = cn_.loop_box[i].extent();
            for (int64_t rows : opt_.strip_rows.get(opt_.coarse)) {
                if ((E + rows - 1) / rows < P || 2 * rows > E) continue;
                StageSched sched = old_;
                sched.unroll_outer = 0;
                for (size_t j = 0; j < st_.loops.size(); j++) {
                    if (st_.loops[j].is_rvar || st_.loops[j].func_dim < 0) continue;
                    // The other loops outside the strips (a channel loop: each channel's
                    // strips slide on their own), the vector loop whole inside a row.
                    if (j == i)
                        sched.loops[j] = {LoopMode::Split, rows};
                    else if (int(j) == vec_loop_)
                        sched.loops[j] = {LoopMode::Inner, 0};
                    else if (cn_.loop_box[j].extent() > 1)
                        sched.loops[j] = {LoopMode::Outer, 0};
                }
                std::shared_ptr<State> parent = retiled(sched, /*choose_parallel=*/false);
                const StageNest &nn = parent->nests[size_t(c_)]->stages[size_t(stage_)];
                // The strip loop runs in parallel, every loop inside it serially.
                int strip = -1, row = -1;
                for (int k = 0; k < int(nn.order.size()); k++) {
                    if (nn.order[size_t(k)].stage_loop != int(i)) continue;
                    (nn.order[size_t(k)].outer_part ? strip : row) = k;
                }
                if (strip < 0 || row != strip + 1) continue;
                StageSched &ps = parent->decisions.mut(size_t(c_)).stages[size_t(stage_)];
                ps.parallel = strip + 1;
                parent->nests.set(size_t(c_),
                                  build_func_nest(dag_, parent->decisions, parent->nests, c_));
                if (detail::strided_load_hazard(dag_, *parent, func_, c_, stage_, row)) continue;
                if (!region_slides_along(dag_, parent->decisions, parent->nests, func_, c_, stage_,
                                         row, row))
                    continue;
                FuncSched at{Placement::At, c_, row, strip, {}};
                at.at_stage = stage_;
                out_.emplace_back(parent, at);
            }
        }
    }

private:
    /** A copy of the state with the consumer's stage tiled as `sched` (and, for a parallel
     * stage, its parallel loops chosen again for the new order when `choose_parallel`). */
    std::shared_ptr<State> retiled(StageSched sched, bool choose_parallel = true) {
        auto parent = std::make_shared<State>(s_);
        parent->siblings = 0;       // not one of s_'s siblings: the consumer's tiling differs
        sched.unrolled_inside = -1; // the new tiling may move that loop; and Funcs go inside it
        if (choose_parallel && old_.parallel > 0) {
            const StageNest probe = make_stage_nest(st_, sched, cn_.loop_box);
            sched.parallel = parallel_(st_, probe, sched.vector_width);
        }
        parent->decisions.mut(size_t(c_)).stages[size_t(stage_)] = sched;
        parent->nests.set(size_t(c_), build_func_nest(dag_, parent->decisions, parent->nests, c_));
        uint64_t h = 0;
        for (int k = 0; k < parent->num_decided; k++)
            h = hash_mix(h, detail::hash_sched(parent->decisions[size_t(order_[size_t(k)])]));
        parent->hash = h;
        return parent;
    }

    /** The innermost loop of the outer group (-1: none). */
    static int innermost_outer(const StageNest &nn) {
        int k = -1;
        for (int j = 0; j < int(nn.order.size()); j++)
            if (nn.order[size_t(j)].outer_part) k = j;
        return k;
    }
    static std::set<int> at_innermost_outer(const StageNest &nn) {
        std::set<int> levels;
        if (innermost_outer(nn) >= 0) levels.insert(innermost_outer(nn));
        return levels;
    }
    /** The outer-group loops of stage loop `loop`. */
    static std::set<int> outer_parts_of(const StageNest &nn, int loop) {
        std::set<int> levels;
        for (int k = 0; k < int(nn.order.size()); k++)
            if (nn.order[size_t(k)].outer_part && nn.order[size_t(k)].stage_loop == loop)
                levels.insert(k);
        return levels;
    }

    /** A copy of the state with the consumer's stage tiled as `sched`, and the Func at the
     * levels `pick` chooses from the new order. A parallel stage (at root) gets its parallel
     * loops chosen again for the new order. */
    void offer(StageSched sched, const std::function<std::set<int>(const StageNest &)> &pick) {
        std::shared_ptr<State> parent = retiled(std::move(sched));
        for (int level : pick(parent->nests[size_t(c_)]->stages[size_t(stage_)])) {
            if (detail::strided_load_hazard(dag_, *parent, func_, c_, stage_, level)) continue;
            FuncSched at{Placement::At, c_, level, -1, {}};
            at.at_stage = stage_;
            out_.emplace_back(parent, at);
        }
    }

    const PipelineDag &dag_;
    const std::vector<int> &order_;
    const State &s_;
    const int func_, c_, stage_;
    const SearchSpaceOptions &opt_;
    ParallelLoops parallel_;
    const StageSched &old_;
    const Stage &st_;
    const StageNest &cn_;
    int vec_loop_ = -1; ///< the stage loop vectorized innermost (-1: none)
    int V_ = 1;         ///< points per vector loop iteration (vector width x unroll)
    Offered out_;
};

} // namespace

std::vector<SearchSpace::Retiling> SearchSpace::retilings(const State &s, int func,
                                                          const SearchSpaceOptions &opt) const {
    std::vector<Retiling> out;
    if (!opt.retile_consumers || large(opt)) return out;
    if (dag_.funcs[func].is_output) return out;
    // One consumer stage holds every use, and nothing is computed inside that consumer yet (the
    // new loop order would move its levels).
    const StageRefs cons = effective_consumers(dag_, s.decisions, func);
    if (cons.empty()) return out;
    for (const StageRef &r : cons)
        if (r != cons.front()) return out;
    const int c = cons.front().first, stage = cons.front().second;
    const FuncSched &cs = s.decisions[size_t(c)];
    if (!loops_may_move(s.decisions, c) || !s.nests[size_t(c)]) return out;
    // Not a register-blocked stage (the new loop would change what is unrolled).
    if (cs.stages[size_t(stage)].unroll_outer > 0 || cs.stages[size_t(stage)].rfactor) return out;
    Retiler r(
        dag_, order_, s, func, c, stage, opt,
        [this](const Stage &st, const StageNest &n, int vw) { return parallel_loops(st, n, vw); });
    r.one_more_split();
    r.outer_loops_inside();
    r.bands();
    r.reduction_splits();
    r.reduction_outside();
    r.register_blocks();
    r.strips();
    for (const auto &[parent, placement] : r.offered())
        out.push_back({parent, placement});
    return out;
}

} // namespace sextant
