#include "SearchSpace.h"
#include "ScheduleText.h"
#include "SearchSpaceDetail.h"
#include "support/Errors.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

namespace sextant {

namespace detail {

uint64_t hash_sched(const FuncSched &fs) {
    uint64_t h = hash_mix(0, placement_key(fs));
    for (const StageSched &s : fs.stages) {
        for (const LoopTiling &t : s.loops)
            h = hash_mix(hash_mix(h, uint64_t(t.mode) * 1000003 + t.tile), uint64_t(t.band));
        h = hash_mix(h, uint64_t(s.vector_width) * 7919 + s.unroll * 31 + s.parallel +
                            uint64_t(s.unroll_outer) * 1000003 + uint64_t(s.rfactor) * 65537 +
                            uint64_t(s.unrolled_inside + 1) * 9176);
    }
    return h;
}

} // namespace detail

SearchSpace::SearchSpace(const PipelineDag &dag) : dag_(dag) {
    for (int f = int(dag.funcs.size()) - 1; f >= 0; f--) {
        if (!dag.funcs[f].is_input_wrapper) order_.push_back(f);
    }
    tails_.resize(dag.funcs.size());
    stage_ops_.resize(dag.funcs.size());
    for (const FuncNode &f : dag.funcs) {
        for (const Stage &s : f.stages) {
            stage_ops_[size_t(f.id)].push_back(double(s.ops.total()));
            tails_[size_t(f.id)].emplace_back();
            for (size_t l = 0; l < s.loops.size(); l++)
                tails_[size_t(f.id)].back().push_back(split_tail(dag, f.id, s.index, int(l)));
        }
        root_or_inline_.push_back(shrinks_at_edges(dag, f.id));
    }
}

StatePtr SearchSpace::initial_state() const {
    auto s = std::make_shared<State>();
    s->decisions.resize(dag_.funcs.size());
    s->nests.resize(dag_.funcs.size());
    s->func_scores.assign(dag_.funcs.size(), State::FuncScore{});
    for (const FuncNode &f : dag_.funcs)
        if (f.is_input_wrapper) s->decisions.mut(f.id).placement = Placement::Inline;
    return s;
}

void SearchSpace::note_buffer(State &s, int func) const {
    // Halide allocates each Tuple element as a buffer of its own (an output's buffers are the
    // caller's).
    const FuncNode &f = dag_.funcs[size_t(func)];
    const FuncSched &fs = s.decisions[size_t(func)];
    if (f.is_output || !s.nests[size_t(func)]) return;
    const double points = fs.placement == Placement::Root ? double(box_volume(f.bounds))
                                                          : s.nests[size_t(func)]->max_alloc_points;
    if (points * f.element_bytes() <= s.largest_buffer_bytes) return;
    s.largest_buffer_bytes = points * f.element_bytes();
    s.largest_buffer_func = func;
    s.buffer_too_large = s.largest_buffer_bytes > double(dag_.machine.max_buffer_bytes);
}

StatePtr SearchSpace::replay(const std::string &schedule_text) const {
    StatePtr s = initial_state();
    s->decisions = parse_schedule_text(dag_, schedule_text);
    s->nests = build_all_nests(dag_, s->decisions);
    s->num_decided = int(order_.size());
    for (const FuncNode &f : dag_.funcs) {
        s->dirty.push_back(f.id);
        note_buffer(*s, f.id);
    }
    detail::check_replayable(dag_, *s, schedule_text, root_or_inline_);
    return s;
}

namespace detail {

double expanded(const PipelineDag &dag, const Decisions &d, const Stage &st, double cap,
                double (*measure)(const Stage &), int depth) {
    double n = measure(st);
    for (const Load &L : st.loads) {
        if (n > cap) break;
        if (L.kind != ProducerKind::Func || L.self || depth >= 64 ||
            !is_inlined(dag, d, L.producer))
            continue;
        n += double(L.count) * expanded(dag, d, dag.stage(L.producer, 0), cap, measure, depth + 1);
    }
    return n;
}

} // namespace detail

namespace {
LoopMode c_stage_mode(const State &s, int func, int stage, int stage_loop) {
    return s.decisions[func].stages[size_t(stage)].loops[stage_loop].mode;
}

} // namespace

double SearchSpace::stage_copies(const State &s, int func, int stage) const {
    const FuncSched &g = s.decisions[func];
    if (size_t(stage) >= g.stages.size()) return 1;
    const StageSched &sc = g.stages[size_t(stage)];
    double copies = std::max(1, sc.unroll);
    const FuncNest *n = s.nests[func].get();
    if (sc.unroll_outer > 0 && n && size_t(stage) < n->stages.size())
        for (const ConcreteLoop &l : n->stages[size_t(stage)].order)
            if (l.unrolled) copies *= double(std::max<int64_t>(1, l.extent));
    return copies;
}

bool SearchSpace::inline_fits(const State &s, int func, const SearchSpaceOptions &opt) const {
    Decisions d = s.decisions;
    d.mut(func).placement = Placement::Inline;
    for (const StageRef &r : effective_consumers(dag_, d, func)) {
        double copies = stage_copies(s, r.first, r.second);
        double cap = opt.max_inlined_body_nodes / copies;
        if (detail::expanded_nodes(dag_, d, dag_.stage(r.first, r.second), cap) > cap) return false;
    }
    return true;
}

namespace {

/** A compute_at site: loops 0..last (outermost first) of stage `stage` of `func`. */
struct Site {
    int func, stage, last;
};

/** Sites: a loop of some Func's stage that encloses every use. For each use, the loops of the
 * reading stage itself, then walking up through the Funcs it is computed in (the loops at or
 * outside each compute level); a site must be on every use's walk. So a Func can be computed
 * beside its consumers in their anchor (a chain of stages sharing a tile), nested in its
 * consumer's own loops, or further up at any enclosing loop (iir_blur's column scans per
 * channel of the output, a boundary condition per tile of the output). Returned with the
 * sites enclosing the consumers' Funcs first (outermost Func last), then the loops of the
 * single consumer itself.
 *
 * In pipelines of more than large_pipeline_funcs Funcs (`large`) only the first two kinds, and
 * only for Funcs read by pure stages (or all in one update stage, then inside it): Halide's
 * bounds inference through the deeper nests the others build grows too fast (bench
 * synthetic_200, 201 Funcs: with every site, 21 Funcs in one output tile and the generator
 * still in Halide 10 minutes after the 29 s search; with update consumers' enclosing loops,
 * 43 s in Halide instead of 9). */
std::vector<Site> enclosing_sites(const State &s, const StageRefs &cons, bool large) {
    bool update_use = false;
    for (const StageRef &r : cons)
        update_use |= r.second != 0;
    if (large && update_use && !std::all_of(cons.begin(), cons.end(), [&](const StageRef &r) {
            return r == cons.front();
        }))
        return {};
    std::vector<Site> sites;
    for (size_t k = 0; k < cons.size(); k++) {
        std::vector<Site> mine{{cons[k].first, cons[k].second, 1 << 30}};
        for (int g = cons[k].first; s.decisions[g].placement == Placement::At;) {
            const FuncSched &gs = s.decisions[g];
            if (large && (mine.size() >= 2 || update_use)) break;
            // Not above (or beside) a Func computed inside an update stage: random pipeline
            // seed 186 (a downsample's producer beside it in an argmin's update) crashed in
            // Halide 14's code. It can still nest inside that Func.
            if (gs.at_stage > 0) break;
            mine.push_back({gs.at_func, 0, gs.at_level});
            g = gs.at_func;
        }
        if (k == 0) {
            sites = mine;
            continue;
        }
        std::vector<Site> common;
        for (Site x : sites) {
            for (const Site &y : mine) {
                if (x.func != y.func || x.stage != y.stage) continue;
                x.last = std::min(x.last, y.last);
                common.push_back(x);
            }
        }
        sites = common;
    }
    std::rotate(sites.begin(), sites.begin() + (sites.size() > 1 ? 1 : 0), sites.end());
    return sites;
}

} // namespace

void SearchSpace::offer_site(const State &s, int func, int anchor, int stage, int last,
                             const SearchSpaceOptions &opt, std::vector<FuncSched> &out) const {
    if (!s.nests[anchor]) return;
    const FuncNode &f = dag_.funcs[func];
    const StageNest &cn = s.nests[anchor]->stages[size_t(stage)];
    // Above large_pipeline_funcs Funcs, a loop that already holds large_max_funcs_per_site
    // Funcs takes no more (SearchSpaceOptions).
    const int site_cap = large(opt) ? opt.large_max_funcs_per_site : 0;
    std::vector<int> held; // with a cap: Funcs computed at each level of the anchor's stage
    if (site_cap > 0) {
        held.assign(cn.order.size(), 0);
        for (const FuncSched &g : s.decisions)
            if (g.placement == Placement::At && g.at_func == anchor && g.at_stage == stage &&
                g.at_level >= 0 && g.at_level < int(held.size()))
                held[size_t(g.at_level)]++;
    }
    // A loop unrolled inside the anchor's vectors holds no Func: Halide moves it innermost.
    const int inside = s.decisions[size_t(anchor)].stages[size_t(stage)].unrolled_inside;
    for (int level = 0; level < int(cn.order.size()) && level <= last; level++) {
        if (cn.order[level].vectorized) break;
        if (inside >= 0 && cn.order[size_t(level)].stage_loop == inside) break;
        if (site_cap > 0 && held[size_t(level)] >= site_cap) continue;
        if (detail::strided_load_hazard(dag_, s, func, anchor, stage, level)) continue;
        FuncSched at{Placement::At, anchor, level, -1, {}};
        at.at_stage = stage;
        out.push_back(at);
        // Sliding windows: storage one or two loops further out, over serial loops that
        // are whole or the inner part of a split (SearchSpaceOptions::slide_in_split_tiles;
        // not above large_pipeline_funcs Funcs). Not over the outer part of a split (its last,
        // ShiftInwards, tile moves backwards), nor for a Func with updates: Halide 14's
        // sliding window / storage folding computes wrong results there (random pipelines
        // 89 and 116 under sextant-fuzz; upstream halide/Halide#7909). Inside an update
        // stage's nest only with SearchSpaceOptions::slide_in_updates.
        if (f.stages.size() > 1 || (stage > 0 && !opt.slide_in_updates)) continue;
        for (int store = level - 1; store >= 0 && store >= level - 2; store--) {
            const ConcreteLoop &between = cn.order[store + 1];
            const bool split =
                c_stage_mode(s, anchor, stage, between.stage_loop) == LoopMode::Split;
            if (between.parallel || (split && (between.outer_part || between.band_part ||
                                               !opt.slide_in_split_tiles || large(opt))))
                break;
            // Only over loops the Func's region slides along. Storage outside a loop the
            // region does not move with slides nothing, and Halide 14 computed wrong
            // results for it: bench bilateral_guided_upsampling's `sample(x, y, j)` (all of
            // j read at every point) stored per row of `blur_z` and computed per j. Nor
            // over a loop it jumps along to disjoint points: random pipeline 132,
            // `s0_input_boundary` stored per row strip of `s4_fan_in` and computed per
            // channel z, one z slice each, was wrong from the first element.
            if (!region_slides_along(dag_, s.decisions, s.nests, func, anchor, stage, level,
                                     store + 1))
                break;
            FuncSched slid{Placement::At, anchor, level, store, {}};
            slid.at_stage = stage;
            out.push_back(slid);
        }
    }
}

std::vector<FuncSched> SearchSpace::placements(const State &s, int func,
                                               const SearchSpaceOptions &opt) const {
    const FuncNode &f = dag_.funcs[func];
    std::vector<FuncSched> out;
    if (f.can_inline && !f.is_output && inline_fits(s, func, opt))
        out.push_back({Placement::Inline, -1, -1, -1, {}});
    // At root, a consumer's vector tail may read it at constant indices (Halide 14's strided-load
    // miscompile): inlined instead, however large (the consumer's tilings keep this from Funcs
    // that cannot be: placement_children).
    if (detail::root_strided_load_hazard(dag_, s, func) < 0)
        out.push_back({Placement::Root, -1, -1, -1, {}});
    else if (out.empty() && f.can_inline && !f.is_output)
        out.push_back({Placement::Inline, -1, -1, -1, {}});
    if (f.is_output || root_or_inline_[size_t(func)]) return out;
    StageRefs cons = effective_consumers(dag_, s.decisions, func);
    if (cons.empty()) return out;
    const bool large = this->large(opt);
    std::vector<Site> sites = enclosing_sites(s, cons, large);
    if (sites.empty()) return out;
    // Uses inside other Funcs of the nest whose own loops are only vector-dimension loops
    // (a 1-D consumer) get the vector-tail hazard check for their whole nest; so do uses in
    // the innermost site's Func, for the sites further out (its own levels are checked where
    // they are offered): random pipeline 111's downsample computed per row of a transpose
    // read the producer placed beside it at a constant index in its one-row nest.
    bool innermost_use_hazard = false;
    for (const StageRef &r : cons) {
        const bool innermost = r.first == sites.back().func;
        if (large || (innermost && sites.size() < 2) ||
            !detail::strided_load_hazard(dag_, s, func, r.first, r.second, -1))
            continue;
        if (!innermost) return out;
        innermost_use_hazard = true;
    }
    for (const Site &x : sites) {
        // Large pipelines: in the single consumer, or beside the consumers in the Func that
        // holds them all directly (and reads the Func itself only if it is at root).
        bool old_site = true, single = true;
        for (const StageRef &r : cons) {
            single &= r.first == x.func;
            old_site &= (r.first == x.func && s.decisions[r.first].placement == Placement::Root) ||
                        s.decisions[r.first].at_func == x.func;
        }
        if (large && !old_site && !single) continue;
        if (large && opt.large_max_nest_depth > 0) {
            int depth = 1; // of the Func, if placed in x.func
            for (int g = x.func; s.decisions[g].placement == Placement::At;
                 g = s.decisions[g].at_func)
                depth++;
            if (depth > opt.large_max_nest_depth) continue;
        }
        // An rfactored stage's loops run in the Func's copies, which nothing else is inside.
        if (s.decisions[size_t(x.func)].stages.size() > size_t(x.stage) &&
            s.decisions[size_t(x.func)].stages[size_t(x.stage)].rfactor)
            continue;
        if (x.stage > 0) {
            // An update stage's loops only for a Func every use of which is in that stage
            // (nl_means' weights, read only by the blend's update: per tile of its pure loops or
            // per step of its RVars).
            bool direct = true;
            for (const StageRef &r : cons)
                direct &= r.first == x.func && r.second == x.stage;
            if (!direct) continue;
        }
        if (innermost_use_hazard && x.func != sites.back().func) continue;
        offer_site(s, func, x.func, x.stage, x.last, opt, out);
    }
    return out;
}

StatePtr SearchSpace::make_child(const State &parent, const FuncSched &fs,
                                 const FuncNest *placed) const {
    int func = order_[parent.num_decided];
    auto c = std::make_shared<State>(parent);
    c->decisions.set(func, fs);
    c->num_decided++;
    c->decided = func;
    c->siblings = 0;
    c->dirty.clear();
    c->recheck.clear();
    c->hash = hash_mix(parent.hash, detail::hash_sched(fs));
    c->placement_hash = hash_mix(parent.placement_hash, placement_key(fs));
    const StageRefs consumers = effective_consumers(dag_, c->decisions, func);
    c->dirty.reserve(consumers.size() + 1);
    if (fs.placement == Placement::Root || fs.placement == Placement::At) {
        c->nests.set(func, build_func_nest(dag_, c->decisions, c->nests, func, placed));
        c->dirty.push_back(func);
        // Its producers are undecided (not inlined yet): the body is the stage's own.
        for (size_t k = 0; k < dag_.funcs[func].stages.size(); k++) {
            double copies = stage_copies(*c, func, int(k));
            if (copies > 1) c->unrolled_nodes += (copies - 1) * stage_ops_[size_t(func)][k];
        }
        const FuncNode &f = dag_.funcs[func];
        if (fs.placement == Placement::Root)
            c->root_bytes += double(box_volume(f.bounds)) * f.bytes_per_point;
        note_buffer(*c, func);
    } else {
        c->func_scores[func].cost = 0;
        if (fs.placement == Placement::Inline) {
            // The Func's body is substituted into every unrolled copy of its consumers.
            for (const StageRef &r : consumers) {
                double copies = stage_copies(*c, r.first, r.second);
                if (copies <= 1) continue;
                const Stage &cs = dag_.stage(r.first, r.second);
                const double cap = kUnrollWalkCap;
                double after = detail::expanded_nodes(dag_, c->decisions, cs, cap);
                double before = detail::expanded_nodes(dag_, parent.decisions, cs, cap);
                c->unrolled_nodes += (copies - 1) * std::max(0.0, after - before);
            }
        }
    }
    for (const StageRef &r : consumers) {
        if (std::find(c->dirty.begin(), c->dirty.end(), r.first) == c->dirty.end())
            c->dirty.push_back(r.first);
    }
    if (fs.placement == Placement::At) {
        // The page faults of a buffer depend on every other heap buffer stored in the same
        // nest (featurizer: heap_group_bytes), so those are checked again.
        const int anchor = root_anchor(c->decisions, func);
        double stacked = 0;
        for (int g = 0; g < int(c->nests.size()); g++) {
            if (!c->nests[g] || c->decisions[g].placement != Placement::At) continue;
            if (root_anchor(c->decisions, g) != anchor) continue;
            if (g != func && c->decisions[g].stack)
                stacked += c->nests[g]->alloc_points * dag_.funcs[g].bytes_per_point;
            if (std::find(c->dirty.begin(), c->dirty.end(), g) == c->dirty.end())
                c->recheck.push_back(g);
        }
        // A constant-size buffer too large for Halide's own stack limit goes on the stack
        // anyway (store_in(MemoryType::Stack)) while the nest's stack stays small: no malloc,
        // no trim, no faults per iteration.
        const FuncNest &n = *c->nests[func];
        const double bytes = n.alloc_points * dag_.funcs[func].bytes_per_point;
        c->decisions.mut(func).stack = n.constant_size && bytes > 16 * 1024 &&
                                       bytes <= kMaxStackBufferBytes &&
                                       stacked + bytes <= kMaxStackBytesPerNest;
    }
    return c;
}

void SearchSpace::children(const State &s, const SearchSpaceOptions &opt,
                           std::vector<StatePtr> *out) const {
    children(s, opt, [&](StatePtr c) { out->push_back(std::move(c)); });
}

namespace {

/** The region one realization of a placed Func computes: under a sliding window only the new
 * points along the dimensions that slide, so tiles are no larger than those (bench box_blur,
 * s11b: `rows` sliding down the output's rows with its y split by 2 and unrolled, over the one
 * new row per output row, ran 0.75 ms where the same placement with y whole ran 0.45). */
Box64 fresh_region(const FuncNest &placed) {
    Box64 region = placed.region;
    if (!placed.sliding || placed.store_realizations <= 0) return region;
    const double per_store = placed.realizations / placed.store_realizations;
    for (size_t dd = 0; dd < region.size(); dd++) {
        const int64_t stored = placed.store_region[dd].extent();
        if (stored <= region[dd].extent() || per_store < 2) continue;
        const int64_t fresh = std::max<int64_t>(1, int64_t(double(stored) / per_store));
        region[dd].max = std::min(region[dd].max, region[dd].min + fresh - 1);
    }
    return region;
}

} // namespace

void SearchSpace::placement_children(const State &parent, FuncSched p, int combo_cap,
                                     const SearchSpaceOptions &opt,
                                     const std::function<void(StatePtr)> &offer) const {
    const int func = order_[parent.num_decided];
    const FuncNode &f = dag_.funcs[func];
    if (p.placement == Placement::Inline) {
        offer(make_child(parent, p));
        return;
    }
    // The placement part of the nest is the same for every tiling: compute it once.
    Decisions placed_decisions = parent.decisions;
    placed_decisions.set(func, p);
    FuncNest placed;
    place_func_nest(dag_, placed_decisions, parent.nests, func, &placed);
    if (std::any_of(placed.region.begin(), placed.region.end(),
                    [](const Interval64 &i) { return i.empty(); }))
        return;
    const Box64 region = fresh_region(placed);
    bool may_par = p.placement == Placement::Root;
    std::vector<std::vector<StageSched>> per_stage;
    std::vector<Box64> boxes; // each stage's loops over one realization
    size_t main_stage = 0;
    double most = -1;
    for (const Stage &st : f.stages) {
        const Box64 &box = boxes.emplace_back(stage_loop_box(st, region));
        per_stage.push_back(cached_tilings(st, box, may_par, opt));
        double work = double(box_volume(box)) * double(st.ops.total() + 1);
        if (work > most) {
            most = work;
            main_stage = per_stage.size() - 1;
        }
    }
    // The stage with the most work gets the variety; the others a couple of variants.
    const int others = opt.coarse ? opt.tilings_other_stages_coarse : opt.tilings_other_stages;
    for (size_t i = 0; i < per_stage.size(); i++)
        if (i != main_stage) detail::thin(&per_stage[i], size_t(std::max(1, others)));
    // Register tiles: a reduction's constant-size realization in a consumer's tile, with its
    // pure loops outside the vector loop unrolled (SearchSpaceOptions::register_tiles), offered
    // as a twin of each combination below, so that the combinations offered without it stay
    // the same (added to the per-stage lists, they shifted the thinning: bench
    // depthwise_separable_conv's pick lost its 1x1 block, 5.7 ms vs 1.8). A loop count Halide
    // could not see as constant would stop the build ("Can only unroll for loops over a
    // constant extent"), so only for constant_size buffers.
    const bool tiles = opt.register_tiles && p.placement == Placement::At && placed.constant_size &&
                       !placed.sliding && f.stages.size() > 1;
    // Loops each tiling of an update stage would unroll (register_tile_loops), once per tiling
    // rather than once per combination that uses it.
    std::vector<std::vector<int>> tile_loops(per_stage.size());
    for (size_t i = 1; tiles && i < per_stage.size(); i++)
        for (const StageSched &t : per_stage[i])
            tile_loops[i].push_back(register_tile_loops(f.stages[i], t, boxes[i]));
    // The combinations, in lexicographic order (the last stage varies fastest), evenly thinned:
    // combination k is picked by its mixed-radix digits, never materializing the whole product
    // (which grows as tilings^stages).
    unsigned __int128 total = 1;
    for (const auto &v : per_stage) {
        total *= v.size();
        if (total > (unsigned __int128)(1) << 100) total = (unsigned __int128)(1) << 100;
    }
    if (total == 0) return;
    const uint64_t picks = total <= (unsigned __int128)(combo_cap)
                               ? uint64_t(total)
                               : uint64_t(std::max(1, combo_cap));
    const double step = double(total) / double(picks); // as thin() computes it
    const uint64_t siblings = next_siblings_id_.fetch_add(1) + 1;
    auto offer_sibling = [&](StatePtr c) {
        // Not a tiling that would leave a producer no safe placement (placements).
        if (p.placement == Placement::Root && detail::strands_fixed_producer(dag_, *c, func))
            return;
        // A tiling that grows the Func's buffer (an update's RoundUp, a pure split wider than
        // the region) gives it an allocation of its own: not scored as its siblings are.
        if (!rounds_up_own_buffer(dag_, p, func) &&
            shifted_in_region(dag_, p, func, placed.region) == placed.region)
            c->siblings = siblings;
        offer(std::move(c));
    };
    for (uint64_t k = 0; k < picks; k++) {
        unsigned __int128 index =
            picks == uint64_t(total) ? k : (unsigned __int128)(double(k) * step);
        p.stages.assign(per_stage.size(), StageSched{});
        SmallVec<size_t, 8> picked(per_stage.size());
        for (size_t i = per_stage.size(); i-- > 0;) {
            const size_t n = per_stage[i].size();
            picked[i] = size_t(index % n);
            p.stages[i] = per_stage[i][picked[i]];
            index /= n;
        }
        offer_sibling(make_child(parent, p, &placed));
        if (!tiles) continue;
        // Update stages only: the accumulators are what a tile keeps in registers. Random
        // pipeline 762 (dropout seed 1 of reliability 1000) had a matmul's pure stage tiled too
        // (x vector by 4 y by 4 z unrolled), and LLVM 14's loop unroller ran over 12 minutes on
        // it (killed); without that one tile it compiled in 6 s and matched.
        bool tiled = false;
        for (size_t i = 1; i < p.stages.size(); i++) {
            const int loops = tile_loops[i][picked[i]];
            // Not with a loop unrolled inside the vectors (refused when applied: fuzz seed 8).
            if (loops == 0 || loops == p.stages[i].unroll_outer || p.stages[i].unrolled_inside >= 0)
                continue;
            p.stages[i].unroll_outer = loops;
            tiled = true;
        }
        if (tiled) offer_sibling(make_child(parent, p, &placed));
    }
}

void SearchSpace::children(const State &s, const SearchSpaceOptions &opt,
                           const std::function<void(StatePtr)> &emit) const {
    children_of(s, opt, emit, nullptr);
}

bool SearchSpace::children(const State &s, const SearchSpaceOptions &opt,
                           const std::function<void(StatePtr)> &emit,
                           const std::set<uint64_t> &allowed) const {
    return children_of(s, opt, emit, &allowed);
}

bool SearchSpace::children_of(const State &s, const SearchSpaceOptions &opt,
                              const std::function<void(StatePtr)> &emit,
                              const std::set<uint64_t> *allowed) const {
    if (is_complete(s)) return true;
    auto wanted = [&](const State &parent, const FuncSched &p) {
        return !allowed || allowed->count(hash_mix(parent.placement_hash, placement_key(p)));
    };
    const int func = order_[s.num_decided];
    // Children over a limit wait here until it is clear that no child is under them; of
    // those, the ones over only the memory limit come first, then over only the unroll
    // budget, then over both (one list each, capped), and last those with a buffer larger
    // than Halide allows (which the beam also ranks after every other state: they are kept
    // only so that the search ends, and the plugin then reports the buffer).
    bool any_ok = false;
    std::vector<StatePtr> over[4];
    auto offer_child = [&](StatePtr c) {
        const double budget = opt.max_unrolled_nodes *
                              std::min(1.0, opt.unroll_budget_funcs / double(dag_.funcs.size()));
        bool unroll = opt.max_unrolled_nodes > 0 && c->unrolled_nodes > budget;
        bool memory = opt.memory_limit_bytes > 0 && c->root_bytes > opt.memory_limit_bytes;
        if (c->buffer_too_large) {
            if (any_ok) return;
            if (int(over[3].size()) < opt.max_fallback_children) over[3].push_back(std::move(c));
            return;
        }
        if (!unroll && !memory) {
            any_ok = true;
            for (auto &v : over)
                v.clear();
            emit(std::move(c));
            return;
        }
        if (any_ok) return;
        std::vector<StatePtr> &v = over[!unroll ? 0 : !memory ? 1 : 2];
        if (int(v.size()) < opt.max_fallback_children) v.push_back(std::move(c));
    };
    const int combo_cap = opt.coarse ? opt.combos_per_placement_coarse : opt.combos_per_placement;
    for (const FuncSched &p : placements(s, func, opt))
        if (wanted(s, p)) placement_children(s, p, combo_cap, opt, offer_child);
    // The Func inside its consumer re-tiled for it: the consumer's tiling was chosen before its
    // producers were, when no split of a loop it could leave whole paid off.
    const int retile_cap = std::max(1, combo_cap / std::max(1, opt.retile_combos_divisor));
    for (const Retiling &r :
         root_or_inline_[size_t(func)] ? std::vector<Retiling>{} : retilings(s, func, opt))
        if (wanted(*r.parent, r.placement))
            placement_children(*r.parent, r.placement, retile_cap, opt, offer_child);
    if (allowed && !any_ok) return false; // the limits' fallback needs every child
    if (!any_ok) {
        for (auto &v : over) {
            if (v.empty()) continue;
            for (StatePtr &c : v)
                emit(std::move(c));
            break;
        }
    }
    return true;
}

} // namespace sextant
