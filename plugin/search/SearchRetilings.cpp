// SearchSpace's re-tilings: the consumer of a Func tiled again for it, one more split or a
// register block, with the Func placed at the new loops (SearchSpaceOptions::retile_consumers,
// register_blocks).
#include "SearchSpace.h"
#include "SearchSpaceDetail.h"

#include <algorithm>
#include <functional>
#include <set>

namespace sextant {

std::vector<SearchSpace::Retiling> SearchSpace::retilings(const State &s, int func,
                                                          const SearchSpaceOptions &opt) const {
    std::vector<Retiling> out;
    if (!opt.retile_consumers || large(opt)) return out;
    if (dag_.funcs[func].is_output) return out;
    // One consumer stage holds every use, and nothing is computed inside that consumer yet (the
    // new loop order would move its levels).
    const std::vector<StageRef> cons = effective_consumers(dag_, s.decisions, func);
    if (cons.empty()) return out;
    for (const StageRef &r : cons)
        if (r != cons.front()) return out;
    const int c = cons.front().first, stage = cons.front().second;
    const FuncSched &cs = s.decisions[size_t(c)];
    if ((cs.placement != Placement::Root && cs.placement != Placement::At) || !s.nests[size_t(c)])
        return out;
    for (const FuncSched &g : s.decisions)
        if (g.placement == Placement::At && g.at_func == c) return out;
    // Not a register-blocked stage (the new loop would change what is unrolled). A parallel
    // stage (at root) gets its parallel loops chosen again for the new order.
    const StageSched &old = cs.stages[size_t(stage)];
    if (old.unroll_outer > 0) return out;
    const Stage &st = dag_.stage(c, stage);
    const StageNest &cn = s.nests[size_t(c)]->stages[size_t(stage)];
    const int vec_loop =
        !cn.order.empty() && cn.order.back().vectorized ? cn.order.back().stage_loop : -1;
    const int V = std::max(1, old.vector_width) * std::max(1, old.unroll);
    // Tiles: the vector loop in multiples of its vectors, the others in rows or bands.
    // A copy of `s` with the consumer's stage tiled as `sched`, and the Func at the levels
    // `pick` chooses from the new order.
    auto offer = [&](StageSched sched,
                     const std::function<std::set<int>(const StageNest &)> &pick) {
        auto parent = std::make_shared<State>(s);
        if (old.parallel > 0) {
            const StageNest probe = make_stage_nest(st, sched, cn.loop_box);
            sched.parallel = parallel_loops(st, probe, sched.vector_width);
        }
        parent->decisions[size_t(c)].stages[size_t(stage)] = sched;
        parent->nests[size_t(c)] = build_func_nest(dag_, parent->decisions, parent->nests, c);
        uint64_t h = 0;
        for (int k = 0; k < parent->num_decided; k++)
            h = hash_mix(h, detail::hash_sched(parent->decisions[size_t(order_[size_t(k)])]));
        parent->hash = h;
        for (int level : pick(parent->nests[size_t(c)]->stages[size_t(stage)])) {
            if (detail::strided_tail_hazard(dag_, *parent, func, c, stage, level)) continue;
            FuncSched at{Placement::At, c, level, -1, {}};
            at.at_stage = stage;
            out.push_back({parent, at});
        }
    };
    // The innermost loop of the outer group.
    auto innermost_outer = [](const StageNest &nn) {
        int k = -1;
        for (int j = 0; j < int(nn.order.size()); j++)
            if (nn.order[size_t(j)].outer_part) k = j;
        return k;
    };

    // One more loop split (or moved outside): the Func at the new outer loop, and at the
    // innermost loop outside the new tile. Tiles: the vector loop in multiples of its vectors,
    // the others in rows or bands.
    std::vector<int64_t> vector_tiles;
    for (int64_t vectors : opt.retile_vector_splits.get(opt.coarse))
        vector_tiles.push_back(vectors * V);
    const std::vector<int64_t> &other_tiles = opt.retile_split_factors.get(opt.coarse);
    for (size_t i = 0; i < st.loops.size(); i++) {
        const LoopDim &l = st.loops[i];
        if (old.loops[i].mode != LoopMode::Inner || l.is_rvar || l.func_dim < 0) continue;
        const int64_t E = cn.loop_box[i].extent();
        std::vector<LoopTiling> modes;
        if (int(i) != vec_loop && E > 1) modes.push_back({LoopMode::Outer, 0});
        for (int64_t t : int(i) == vec_loop ? vector_tiles : other_tiles)
            if (2 * t <= E) modes.push_back({LoopMode::Split, t});
        for (const LoopTiling &t : modes) {
            StageSched sched = old;
            sched.loops[i] = t;
            offer(sched, [&](const StageNest &nn) {
                std::set<int> levels;
                for (int k = 0; k < int(nn.order.size()); k++)
                    if (nn.order[size_t(k)].outer_part && nn.order[size_t(k)].stage_loop == int(i))
                        levels.insert(k);
                if (innermost_outer(nn) >= 0) levels.insert(innermost_outer(nn));
                return levels;
            });
        }
    }

    // Multi-level tiling: a split loop of the consumer gets a band between its strip and its
    // tile (LoopTiling::band: strip -> band of 4 or 16 tiles -> tile), and the Func is computed
    // per band: a producer's tile sized for the cache inside a parallel strip, while the
    // consumer keeps its own (register-sized) tile. Offered here, where a Func can use the new
    // loop, not among every stage's tilings: there the model never picked one on the bench
    // and the extra tilings thinned out the ones it did (matmul's pick was dropped).
    for (size_t i = 0; i < st.loops.size() && !opt.coarse; i++) {
        const LoopTiling &t = old.loops[i];
        if (t.mode != LoopMode::Split || t.band > 0 || st.loops[i].is_rvar) continue;
        const int64_t E = cn.loop_box[i].extent();
        for (int64_t tiles : opt.band_tiles) {
            const int64_t b = tiles * t.tile;
            if (tiles < 2 || 2 * b > E) continue;
            StageSched sched = old;
            sched.loops[i].band = b;
            offer(sched, [&](const StageNest &nn) {
                std::set<int> levels;
                for (int k = 0; k < int(nn.order.size()); k++)
                    if (nn.order[size_t(k)].band_part && nn.order[size_t(k)].stage_loop == int(i))
                        levels.insert(k);
                return levels;
            });
        }
    }

    // Reduction splits: the consumer's outermost RVar split into chunks (the chunk loop in the
    // outer group, its inner part with the other RVars, all made Middle, just outside the
    // innermost pure loop), and the Func computed per chunk: depthwise results per 16 input
    // channels of a pointwise convolution. Only the outermost RVar: the RVars keep their
    // relative order, which Halide requires of a reduction. Only where the Func is read along
    // that RVar, and only with the Func at the chunk loop: among every stage's tilings the
    // model picked splits that bought nothing (bench matmul, `k$x:split4`, 2.1 ms against
    // 1.2-1.3 for k whole, priced 1% apart; depthwise_separable_conv 2.04 vs 1.60 ms).
    int outer_rvar = -1;
    for (size_t i = 0; i < st.loops.size(); i++)
        if (st.loops[i].is_rvar) outer_rvar = int(i);
    bool along_rvar = false;
    for (const Load &L : st.loads) {
        if (outer_rvar < 0 || L.kind != ProducerKind::Func || L.producer != func ||
            L.loop_dims != int(st.loops.size()))
            continue;
        for (int p = 0; p < L.producer_dims; p++) {
            const JacobianEntry &j = L.at(p, outer_rvar);
            along_rvar |= !j.affine || j.num != 0;
        }
    }
    if (along_rvar && vec_loop >= 0) {
        const int64_t R = cn.loop_box[size_t(outer_rvar)].extent();
        for (int64_t chunk : opt.reduction_chunks.get(opt.coarse)) {
            if (2 * chunk > R) continue;
            StageSched sched = old;
            for (size_t i = 0; i < st.loops.size(); i++)
                if (st.loops[i].is_rvar || st.loops[i].func_dim < 0)
                    sched.loops[i] = {LoopMode::Middle, 0};
            sched.loops[size_t(outer_rvar)] = {LoopMode::Split, chunk};
            offer(sched, [&](const StageNest &nn) {
                std::set<int> levels;
                for (int k = 0; k < int(nn.order.size()); k++)
                    if (nn.order[size_t(k)].outer_part &&
                        nn.order[size_t(k)].stage_loop == outer_rvar)
                        levels.insert(k);
                return levels;
            });
        }
    }

    // The consumer's reduction outside (SearchSpaceOptions::reduction_outside): its RVars move
    // to the outer group, so the Func is computed per iteration of the reduction, over the
    // whole tile of pure points: split pure loops keep their tiles outside the reduction,
    // whole ones go inside it.
    if (opt.reduction_outside) {
        StageSched sched = old;
        bool moved = false;
        bool reduces_here = false;
        for (size_t i = 0; i < st.loops.size(); i++) {
            if (cn.loop_box[i].extent() <= 1) continue;
            if (st.loops[i].is_rvar) {
                reduces_here = true;
                if (old.loops[i].mode == LoopMode::Outer) continue;
                sched.loops[i] = {LoopMode::Outer, 0};
                moved = true;
            } else if (old.loops[i].mode == LoopMode::Outer) {
                // A whole pure loop outside the reduction would make the Func per point of
                // it: it goes inside, with the tile.
                sched.loops[i] = {LoopMode::Inner, 0};
                moved = true;
            }
        }
        moved &= reduces_here;
        if (moved) {
            offer(sched, [&](const StageNest &nn) {
                std::set<int> levels;
                if (innermost_outer(nn) >= 0) levels.insert(innermost_outer(nn));
                return levels;
            });
        }
    }

    // Register blocks (SearchSpaceOptions::register_blocks): a reduction computed per block of
    // its consumer small enough for its accumulators to stay in vector registers. The vector
    // loop is split to one vector, one or two more pure loops to a few points, every other pure
    // loop moves outside; the Func goes at the innermost loop outside the block.
    bool reduces = false;
    for (const Stage &ps : dag_.funcs[func].stages)
        for (const LoopDim &pl : ps.loops)
            reduces |= pl.is_rvar;
    bool consumer_reduces = false;
    for (size_t i = 0; i < st.loops.size(); i++)
        consumer_reduces |= st.loops[i].is_rvar && cn.loop_box[i].extent() > 1;
    if (!opt.register_blocks || !reduces || consumer_reduces || vec_loop < 0) return out;
    const int W = std::max(1, old.vector_width);
    if (cn.loop_box[size_t(vec_loop)].extent() < 2 * W) return out;
    const int native =
        std::max(1, dag_.machine.vector_bits / 8 / std::max(1, dag_.funcs[func].bytes_per_point));
    const int registers = dag_.machine.vector_bits >= 512 ? 32 : 16;
    // Accumulator vectors a block may hold: three quarters of the register file (the rest
    // hold the loaded operands), as the featurizer's accumulates_in_registers assumes.
    const int budget = registers * 3 / 4 / std::max(1, (W + native - 1) / native);
    // The block's other loops: the first two non-vector pure loops with more than one point.
    std::vector<size_t> dims;
    for (size_t i = 0; i < st.loops.size() && dims.size() < 2; i++)
        if (int(i) != vec_loop && !st.loops[i].is_rvar && st.loops[i].func_dim >= 0 &&
            cn.loop_box[i].extent() > 1)
            dims.push_back(i);
    const std::vector<int64_t> &sizes = opt.register_block_points.get(opt.coarse);
    for (int64_t a : sizes) {
        for (int64_t b : dims.size() > 1 ? sizes : std::vector<int64_t>{1}) {
            if (a * b > budget || (a == 1 && b == 1)) continue;
            StageSched sched = old;
            sched.unroll = 1;
            sched.unroll_outer = 0;
            for (size_t i = 0; i < st.loops.size(); i++)
                if (!st.loops[i].is_rvar && st.loops[i].func_dim >= 0 &&
                    cn.loop_box[i].extent() > 1)
                    sched.loops[i] = {LoopMode::Outer, 0};
            bool fits = true;
            // Loop i gets t points of the block: one point is the whole loop outside it,
            // the whole extent is the whole loop inside it.
            auto block = [&](size_t i, int64_t t) {
                const int64_t E = cn.loop_box[i].extent();
                if (t > E)
                    fits = false;
                else if (t == E)
                    sched.loops[i] = {LoopMode::Inner, 0};
                else if (t > 1)
                    sched.loops[i] = {LoopMode::Split, t};
            };
            block(size_t(vec_loop), W);
            if (!dims.empty()) block(dims[0], a);
            if (dims.size() > 1) block(dims[1], b);
            if (!fits) continue;
            offer(sched, [&](const StageNest &nn) {
                std::set<int> levels;
                if (innermost_outer(nn) >= 0) levels.insert(innermost_outer(nn));
                return levels;
            });
        }
    }
    return out;
}

} // namespace sextant
