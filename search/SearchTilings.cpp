// SearchSpace's tilings: the loop splits, vector widths, unrolling and parallel loops a stage
// may take for one realization, enumerated (thinned to caps) and memoized.
#include "SearchSpace.h"

#include <algorithm>
#include <cmath>

namespace sextant {

int SearchSpace::vector_lanes(int func) const {
    // One register of the Func's narrowest type, at most 32 lanes (8-bit Funcs on AVX-512
    // would have 64): the widest vector the search offers.
    return std::min(dag_.machine.natural_vector_lanes(dag_.funcs[func]), 32);
}

int SearchSpace::parallel_loops(const Stage &s, const StageNest &n, int vector_width) const {
    // The outermost loops, until there are 8 tasks per core (or a loop that may not run in
    // parallel); never the vectorized loop.
    const int P = std::max(1, dag_.machine.parallelism);
    int64_t tasks = 1;
    int p = 0;
    for (size_t j = 0; j + 1 < n.order.size() || (j < n.order.size() && vector_width == 1); j++) {
        const ConcreteLoop &c = n.order[j];
        const LoopDim &cl = s.loops[size_t(c.stage_loop)];
        if (!cl.parallel_safe || cl.is_rvar) break;
        if (tasks >= 8 * P) break;
        tasks *= c.extent;
        p++;
    }
    return tasks >= 2 ? p : 0;
}

std::vector<StageSched> SearchSpace::tilings(const Stage &s, const Box64 &box, bool may_par,
                                             bool coarse, int cap) const {
    SearchSpaceOptions opt;
    opt.coarse = coarse;
    opt.tilings_per_stage = opt.tilings_per_stage_coarse = cap;
    return tilings(s, box, may_par, opt);
}

std::vector<std::vector<LoopTiling>>
SearchSpace::loop_options(const Stage &s, const Box64 &box, const SearchSpaceOptions &opt) const {
    const bool coarse = opt.coarse;
    const int V = vector_lanes(s.func);
    const int k = int(s.loops.size());
    // Above large_pipeline_funcs Funcs, the `_large` sizes (SearchSpaceOptions).
    const bool big = large(opt);
    const std::vector<int64_t> &vector_splits =
        (big ? opt.vector_splits_large : opt.vector_splits).get(coarse);
    const std::vector<int64_t> &split_factors =
        (big ? opt.split_factors_large : opt.split_factors).get(coarse);
    std::vector<std::vector<LoopTiling>> opts(k);
    int pure_seen = 0;
    bool is_update = s.index > 0;
    for (int i = 0; i < k; i++) {
        const LoopDim &l = s.loops[i];
        int64_t E = box[i].extent();
        std::vector<LoopTiling> &o = opts[i];
        o.push_back({LoopMode::Inner, 0});
        if (E <= 1) continue;
        if (l.is_rvar || l.func_dim < 0) continue; // RVars move together (tilings())

        int rank = pure_seen++;
        if (l.func_dim == 0 && l.parallel_safe) {
            // Coarse: a register-sized and a cache-sized tile, so that producers can find a
            // fitting anchor loop in the first pass.
            for (int64_t vectors : vector_splits)
                if (int64_t(V) * vectors < E) o.push_back({LoopMode::Split, int64_t(V) * vectors});
        } else if (rank <= 1 || l.func_dim == 1 || (is_update && rank <= 2 && !coarse)) {
            o.push_back({LoopMode::Outer, 0});
            for (int64_t t : split_factors)
                if (t < E) o.push_back({LoopMode::Split, t});
        } else {
            if (coarse)
                o[0] = {E > 8 ? LoopMode::Outer : LoopMode::Inner, 0};
            else
                o.push_back({LoopMode::Outer, 0});
        }
    }

    // Bound the enumeration: thin the loops with the most options first (each keeps its
    // first option, the whole loop in the inner group).
    if (opt.max_loop_option_product > 0) {
        while (true) {
            double product = 1;
            size_t widest = 0;
            for (size_t i = 0; i < opts.size(); i++) {
                product *= double(opts[i].size());
                if (opts[i].size() > opts[widest].size()) widest = i;
            }
            if (product <= opt.max_loop_option_product || opts[widest].size() <= 1) break;
            detail::thin(&opts[widest], opts[widest].size() - 1);
        }
    }
    return opts;
}

void SearchSpace::add_vectorized(const Stage &s, const Box64 &box,
                                 const std::vector<LoopTiling> &loops, bool may_par, bool coarse,
                                 bool autotune_tilings, std::vector<StageSched> &out) const {
    const int V = vector_lanes(s.func);
    StageSched base;
    base.loops = loops;
    StageNest n = make_stage_nest(s, base, box);
    if (n.order.empty()) { // a zero-dimensional stage (a scalar Func)
        out.push_back(base);
        return;
    }
    const ConcreteLoop &inner = n.order.back();
    const LoopDim &il = s.loops[inner.stage_loop];
    // Lanes in flight (width times unrolling) are capped so that a value of the stage's widest
    // arithmetic fills at most four registers: bench histogram_equalize's uint8 output
    // computes in int32, and at 64 lanes (8 AVX2 registers a value) it ran 16.6 ms against
    // 14.0 at 32 and 13.7 at 16, and 18.9 at 32 unrolled twice against 17.5 at 64 (the cost
    // model prices the widened arithmetic per point, not the spills). Float stages are never
    // capped (16 lanes unrolled twice are four registers).
    const int64_t max_lanes = std::max<int64_t>(V, 4 * std::max(1, dag_.machine.vector_bits / 8) /
                                                       s.ops.widest_type_bytes());
    std::vector<int> widths = {1};
    if (il.func_dim == 0 && il.parallel_safe && inner.extent >= V && !s.no_vectorize) {
        widths = {V};
        if (!coarse && inner.extent >= 2 * V && 2 * V <= max_lanes && !s.masked_lanes)
            widths.push_back(2 * V);
        const int64_t two_registers = 2 * std::max(1, dag_.machine.vector_bits / 8);
        if (autotune_tilings && V >= 4 && int64_t(V) * s.ops.widest_type_bytes() > two_registers)
            widths.push_back(V / 2);
    }
    // Vectorizing the inner part of a GuardWithIf split (an output's update, an RVar, or a Func
    // whose growth would read inputs outside their region; see Tails.h) when that is more than
    // one vector made Halide 14 write outside the buffer where the split left a tail (random
    // pipelines 608 and 618: `x:split32..512 vector 16` over an extent no split divides, heap
    // corruption; one vector, or x whole, is correct). Whether a tail is left depends on the
    // size the pipeline runs at, not the estimate: only widths that are the whole inner part.
    // A RoundUp split has no tail.
    const LoopTiling &it = base.loops[size_t(inner.stage_loop)];
    if (it.mode == LoopMode::Split &&
        tails_[size_t(s.func)][size_t(s.index)][size_t(inner.stage_loop)] == Tail::GuardWithIf) {
        std::vector<int> kept = {1};
        for (int w : widths)
            if (w > 1 && int64_t(w) == it.tile) kept.push_back(w);
        widths = kept;
    }
    for (int w : widths) {
        std::vector<int> unrolls = {1};
        // Not for updates: there the split tails are GuardWithIf, and Halide 14 computes wrong
        // results for unroll-after-vectorize with guarded tails (sextant-fuzz seed 165).
        if (w > 1 && inner.extent >= 2 * w && s.index == 0 && 2 * w <= max_lanes)
            unrolls.push_back(2);
        for (int u : unrolls) {
            StageSched sc = base;
            sc.vector_width = w;
            sc.unroll = u;
            if (may_par) sc.parallel = parallel_loops(s, n, w);
            out.push_back(sc);
            if (sc.parallel > 0) {
                // Small stages may not be worth waking the thread pool for.
                StageSched serial = sc;
                serial.parallel = 0;
                out.push_back(serial);
            }
            // Register blocking: unroll a short split part just outside the vectors.
            if (!coarse && w > 1 && n.order.size() >= 2) {
                const ConcreteLoop &o2 = n.order[n.order.size() - 2];
                bool short_split = !o2.outer_part &&
                                   base.loops[o2.stage_loop].mode == LoopMode::Split &&
                                   o2.extent >= 2 && o2.extent <= 8;
                if (short_split && int(n.order.size()) - 2 >= sc.parallel) {
                    StageSched blocked = sc;
                    blocked.unroll_outer = 1;
                    out.push_back(blocked);
                }
            }
        }
    }
}

std::vector<StageSched> SearchSpace::tilings(const Stage &s, const Box64 &box, bool may_par,
                                             const SearchSpaceOptions &opt) const {
    const int cap = opt.coarse ? opt.tilings_per_stage_coarse : opt.tilings_per_stage;
    const int k = int(s.loops.size());
    std::vector<std::vector<LoopTiling>> opts = loop_options(s, box, opt);

    // RVars keep their relative order; they all stay innermost (Halide's default), or all move into
    // the outer group, between the outer tiles of the pure loops and the inner ones (a tile of pure
    // points stays hot while the reduction runs, and the pure loops can vectorize), or all go just
    // outside the innermost pure loop (accumulating a vector of points in registers). Reduction
    // splits are offered with the Func that uses them (SearchRetilings.cpp).
    bool has_vector_dim = false, has_rvar = false;
    for (int i = 0; i < k; i++) {
        has_vector_dim |= s.loops[i].func_dim == 0 && s.loops[i].parallel_safe;
        has_rvar |= s.loops[i].is_rvar && box[i].extent() > 1;
    }
    std::vector<LoopMode> rvar_modes = {LoopMode::Inner};
    if (has_rvar && has_vector_dim) {
        rvar_modes.push_back(LoopMode::Outer);
        rvar_modes.push_back(LoopMode::Middle);
    }

    // Every combination of the loops' options (the last loop varying slowest), each with its
    // vector widths, unrolling and parallel loops.
    std::vector<StageSched> out;
    std::vector<LoopTiling> cur(k);
    std::function<void(int)> rec = [&](int i) {
        if (i < 0) {
            add_vectorized(s, box, cur, may_par, opt.coarse, opt.autotune_tilings, out);
            return;
        }
        for (const LoopTiling &t : opts[i]) {
            cur[i] = t;
            rec(i - 1);
        }
    };
    for (LoopMode rm : rvar_modes) {
        for (int i = 0; i < k; i++)
            if (s.loops[i].is_rvar || s.loops[i].func_dim < 0) opts[i] = {{rm, 0}};
        rec(k - 1);
    }
    detail::thin(&out, size_t(std::max(1, cap)));
    // Each kept tiling's twin with a short loop unrolled inside its vectors, added after the
    // thinning so that the twins do not take the places of other tilings. The one-shot search
    // offers them only where the copies share a gather (the twins everywhere moved 13 of 24
    // bench picks, interpolate 1.37x; histogram_equalize ran 0.76x: docs/SEARCH.md).
    const bool every_twin = opt.autotune_tilings || opt.unroll_inside;
    uint32_t sharing = 0; // the loops whose copies share a gather
    for (int l = 0; l < k && !every_twin; l++)
        if (shares_gather(s, l)) sharing |= 1u << l;
    if (every_twin || sharing) {
        const size_t kept = out.size();
        for (size_t i = 0; i < kept; i++) {
            const int l = unrolled_inside_loop(s, out[i]);
            if (l < 0 || !(every_twin || (sharing >> l & 1))) continue;
            // Autotuning measures what it offers: the one-shot search keeps to the registers.
            if (!opt.autotune_tilings &&
                !unrolled_inside_fits_registers(s, out[i], l, dag_.machine.vector_bits))
                continue;
            StageSched twin = out[i];
            twin.unrolled_inside = l;
            out.push_back(twin);
        }
    }
    // Factored reductions (StageSched::rfactor), for a Root Func's update with no pure loop to
    // run in parallel: P, 4P or 8P bands of its outermost RVar (bench histogram_equalize's
    // expert schedule factors its histogram into 16 bands of rows), when the copies the bands
    // fill and merge are small beside the reduction.
    if (may_par && s.can_rfactor) {
        const int P = std::max(1, dag_.machine.parallelism);
        const double copy_points = double(box_volume(dag_.funcs[size_t(s.func)].bounds));
        const double reduction = double(box_volume(box));
        for (int bands : {P, 4 * P, 8 * P}) {
            StageSched ss = rfactor_tiling(s, bands);
            if (ss.loops.empty() || !rfactor_problem(dag_, s.func, s.index, ss).empty()) continue;
            if (copy_points * bands * 16 > reduction) continue;
            out.push_back(ss);
        }
    }
    return out;
}

int SearchSpace::register_tile_loops(const Stage &s, const StageSched &sc, const Box64 &box) const {
    if (sc.vector_width <= 1) return 0;
    const StageNest n = make_stage_nest(s, sc, box);
    const int nl = int(n.order.size());
    if (nl < 2 || !n.order.back().vectorized) return 0;
    const FuncNode &f = dag_.funcs[size_t(s.func)];
    const int native = std::max(1, dag_.machine.vector_bits / 8 / std::max(1, f.bytes_per_point));
    const int registers = dag_.machine.vector_bits >= 512 ? 32 : 16;
    // Accumulator vectors: three quarters of the register file, as the register blocks and the
    // featurizer's accumulates_in_registers assume.
    const double budget = registers * 3 / 4;
    double vectors = double(sc.unroll) * double((sc.vector_width + native - 1) / native);
    int loops = 0;
    for (int j = nl - 2; j >= 0; j--) {
        const ConcreteLoop &l = n.order[size_t(j)];
        if (s.loops[size_t(l.stage_loop)].is_rvar || l.outer_part || l.band_part || l.parallel ||
            l.extent < 2 || vectors * double(l.extent) > budget)
            break;
        vectors *= double(l.extent);
        loops++;
    }
    return loops;
}

size_t SearchSpace::TilingKeyHash::operator()(const TilingKey &k) const {
    uint64_t h = hash_mix(uint64_t(k.func) * 64 + uint64_t(k.stage),
                          uint64_t(k.may_parallelize) * 2 + k.coarse);
    h = hash_mix(hash_mix(h, uint64_t(k.cap)), uint64_t(k.max_loop_option_product));
    for (int64_t v : k.sizes)
        h = hash_mix(h, uint64_t(v));
    return size_t(h);
}

std::vector<StageSched> SearchSpace::cached_tilings(const Stage &s, const Box64 &box, bool may_par,
                                                    const SearchSpaceOptions &opt) const {
    TilingKey key{s.func,
                  s.index,
                  may_par,
                  opt.coarse,
                  opt.coarse ? opt.tilings_per_stage_coarse : opt.tilings_per_stage,
                  opt.max_loop_option_product,
                  {opt.autotune_tilings ? -2
                   : opt.unroll_inside  ? -4
                                        : -3}};
    // Everything else tilings() reads from `opt`: the split sizes in use.
    const bool big = large(opt);
    for (const SizeList *l : {big ? &opt.vector_splits_large : &opt.vector_splits,
                              big ? &opt.split_factors_large : &opt.split_factors}) {
        key.sizes.insert(key.sizes.end(), l->get(opt.coarse).begin(), l->get(opt.coarse).end());
        key.sizes.push_back(-1);
    }
    for (const Interval64 &i : box) {
        key.sizes.push_back(i.min);
        key.sizes.push_back(i.max);
    }
    std::lock_guard<std::mutex> lock(tiling_cache_mutex_);
    auto it = tiling_cache_.find(key);
    if (it == tiling_cache_.end()) {
        it = tiling_cache_.emplace(key, tilings(s, box, may_par, opt)).first;
        tiling_cache_entries_ += it->second.size();
    }
    return it->second;
}

double SearchSpace::cache_bytes() const {
    std::lock_guard<std::mutex> lock(tiling_cache_mutex_);
    // Entries, their vectors' storage, and the hash table's nodes and buckets.
    return double(tiling_cache_entries_) * sizeof(StageSched) +
           double(tiling_cache_.size()) * (sizeof(std::vector<StageSched>) + 64) +
           double(tiling_cache_.bucket_count()) * sizeof(void *);
}

void SearchSpace::clear_caches() const {
    std::lock_guard<std::mutex> lock(tiling_cache_mutex_);
    tiling_cache_.clear();
    tiling_cache_entries_ = 0;
}

} // namespace sextant
