#include "Directives.h"

#include "LoopNest.h"

namespace sextant {

std::string loop_var_name(const Stage &s, const StageSched &sched, int stage_loop, bool outer_part,
                          bool band_part) {
    const std::string &n = s.loops[stage_loop].name;
    if (sched.loops[stage_loop].mode != LoopMode::Split) return n;
    return n + (outer_part ? "_o" : band_part ? "_m" : "_i");
}

int fused_parallel_loops(const PipelineDag &dag, const Decisions &d, int func, int stage) {
    const FuncSched &fs = d[size_t(func)];
    if (fs.placement == Placement::Inline || size_t(stage) >= fs.stages.size()) return 0;
    const StageSched &ss = fs.stages[size_t(stage)];
    const int p = ss.parallel;
    if (p < 2) return 0;
    if (ss.unroll_outer > 0) {
        // Never fuse a loop that is unrolled (those just outside the vector loop).
        const Stage &s = dag.funcs[size_t(func)].stages[size_t(stage)];
        const int loops = int(make_stage_nest(s, ss, s.full_loop_box()).order.size());
        if (loops - 1 - ss.unroll_outer < p) return 0;
    }
    for (size_t g = 0; g < d.size(); g++) {
        const FuncSched &gs = d[g];
        if (gs.placement != Placement::At || gs.at_func != func || gs.at_stage != stage) continue;
        if (gs.at_level < p - 1) return 0;
        if (gs.store_level >= 0 && gs.store_level < p - 1) return 0;
    }
    return p;
}

namespace {

/** The name of loops first..last-1 of `n` fused: their names, outermost first, joined. */
std::string fused_name(const Stage &s, const StageSched &ss, const StageNest &n, int first,
                       int last) {
    std::string name;
    for (int i = first; i < last; i++) {
        const ConcreteLoop &l = n.order[size_t(i)];
        name += loop_var_name(s, ss, l.stage_loop, l.outer_part, l.band_part) + "_";
    }
    return name + "par";
}

/** The loop variable of loop `l` of a stage's nest. */
std::string var_of(const Stage &s, const StageSched &ss, const ConcreteLoop &l) {
    return loop_var_name(s, ss, l.stage_loop, l.outer_part, l.band_part);
}

/** A loop of a consumer's nest by name: the fused parallel loop stands for its parts. */
std::string site_name(const PipelineDag &dag, const Decisions &d, int func, int stage,
                      const StageNest &n, int level) {
    const Stage &s = dag.funcs[size_t(func)].stages[size_t(stage)];
    const StageSched &ss = d[size_t(func)].stages[size_t(stage)];
    const int fused = fused_parallel_loops(dag, d, func, stage);
    if (level < fused) return fused_name(s, ss, n, 0, fused);
    return var_of(s, ss, n.order[size_t(level)]);
}

/** compute_root, or compute_at (and store_at, store_in stack) of a computed Func. */
void add_placement(const PipelineDag &dag, const Decisions &d, const FuncNode &f,
                   std::vector<Directive> &out) {
    const FuncSched &fs = d[f.id];
    if (fs.placement == Placement::Root) {
        out.push_back({Directive::Kind::ComputeRoot, f.id, 0, {}});
        return;
    }
    const FuncNode &c = dag.funcs[fs.at_func];
    // Halide resolves compute_at(c, var) to the stage of c that uses the Func.
    const Stage &cst = c.stages[fs.at_stage];
    const StageSched &cs = d[fs.at_func].stages[fs.at_stage];
    StageNest cn = make_stage_nest(cst, cs, cst.full_loop_box());
    // compute_at or store_at the consumer's loop at `level`.
    auto at_loop = [&](Directive::Kind kind, int level) {
        Directive at{kind, f.id, 0, {}};
        at.at_func = fs.at_func;
        at.vars.push_back({site_name(dag, d, fs.at_func, fs.at_stage, cn, level),
                           cst.loops[cn.order[size_t(level)].stage_loop].is_rvar});
        out.push_back(at);
    };
    at_loop(Directive::Kind::ComputeAt, fs.at_level);
    if (fs.store_level >= 0 && fs.store_level < fs.at_level)
        at_loop(Directive::Kind::StoreAt, fs.store_level);
    if (fs.stack) out.push_back({Directive::Kind::StoreInStack, f.id, 0, {}});
}

/** The splits of stage `si` (a band's second split after its first). */
void add_splits(const PipelineDag &dag, const FuncNode &f, size_t si, const StageSched &ss,
                std::vector<Directive> &out) {
    const Stage &s = f.stages[si];
    for (size_t i = 0; i < s.loops.size(); i++) {
        if (ss.loops[i].mode != LoopMode::Split) continue;
        Directive sp{Directive::Kind::Split, f.id, int(si), {}};
        bool rv = s.loops[i].is_rvar;
        const LoopTiling &t = ss.loops[i];
        const std::string inner_name = loop_var_name(s, ss, int(i), false);
        // A band: strip (x_o) first, then the strip's part (x_b) into bands (x_m) of tiles
        // (x_i). The second split divides a constant extent: no tail is taken; in an update
        // it must be guarded (Halide rounds up only the definition's own vars).
        sp.vars = {{s.loops[i].name, rv},
                   {loop_var_name(s, ss, int(i), true), rv},
                   {t.band > 0 ? s.loops[i].name + "_b" : inner_name, rv}};
        sp.factor = t.band > 0 ? t.band : t.tile;
        sp.tail = split_tail(dag, f.id, int(si), int(i));
        out.push_back(sp);
        if (t.band > 0) {
            Directive b{Directive::Kind::Split, f.id, int(si), {}};
            b.vars = {
                sp.vars[2], {loop_var_name(s, ss, int(i), false, true), rv}, {inner_name, rv}};
            b.factor = t.tile;
            b.tail = si > 0 ? Tail::GuardWithIf : Tail::ShiftInwards;
            out.push_back(b);
        }
    }
}

/** Vectorize and unroll the innermost loop of nest `n` of stage `si`, then fully unroll the
 * loops the nest marks. */
void add_vectors_and_unrolls(const PipelineDag &dag, const FuncNode &f, size_t si,
                             const StageSched &ss, const StageNest &n,
                             std::vector<Directive> &out) {
    const Stage &s = f.stages[si];
    const ConcreteLoop &inner = n.order.back();
    LoopVar iv{var_of(s, ss, inner), s.loops[inner.stage_loop].is_rvar};
    // Vectorizing or unrolling splits the innermost loop again. In an update, Halide rounds up
    // only a split of one of the definition's own pure vars, not a part of an earlier split
    // ("may redundantly recompute some values"); there the factor divides the part's extent,
    // and the guard it asks for is never taken.
    Tail inner_tail = split_tail(dag, f.id, int(si), inner.stage_loop);
    if (si > 0 && ss.loops[size_t(inner.stage_loop)].mode == LoopMode::Split)
        inner_tail = Tail::GuardWithIf;
    if (ss.vector_width > 1) {
        Directive v{Directive::Kind::Vectorize, f.id, int(si), {iv}};
        v.factor = ss.vector_width;
        v.tail = inner_tail;
        out.push_back(v);
    }
    if (ss.unroll > 1) {
        Directive u{Directive::Kind::Unroll, f.id, int(si), {iv}};
        u.factor = ss.unroll;
        u.tail = inner_tail;
        out.push_back(u);
    }
    for (const ConcreteLoop &l : n.order) {
        if (!l.unrolled) continue;
        Directive u{Directive::Kind::Unroll,
                    f.id,
                    int(si),
                    {{var_of(s, ss, l), s.loops[l.stage_loop].is_rvar}}};
        u.factor = 0; // fully
        out.push_back(u);
    }
}

/** The parallel loops of stage `si`: fused into one where fused_parallel_loops allows. */
void add_parallel(const PipelineDag &dag, const Decisions &d, const FuncNode &f, size_t si,
                  const StageSched &ss, const StageNest &n, std::vector<Directive> &out) {
    const Stage &s = f.stages[si];
    const int fused = fused_parallel_loops(dag, d, f.id, int(si));
    if (fused >= 2) {
        // Order x_o, y_o, c (outermost first): fuse(c, y_o, y_o_c_par), then
        // fuse(y_o_c_par, x_o, x_o_y_o_c_par).
        std::string inner_name;
        for (int p = fused - 1; p >= 1; p--) {
            const ConcreteLoop &in = n.order[size_t(p)], &ou = n.order[size_t(p - 1)];
            Directive fu{Directive::Kind::Fuse, f.id, int(si), {}};
            fu.vars = {{p == fused - 1 ? var_of(s, ss, in) : inner_name, false},
                       {var_of(s, ss, ou), false},
                       {fused_name(s, ss, n, p - 1, fused), false}};
            inner_name = fu.vars[2].name;
            out.push_back(fu);
        }
        out.push_back({Directive::Kind::Parallel, f.id, int(si), {{inner_name, false}}});
        return;
    }
    for (int p = 0; p < ss.parallel && p < int(n.order.size()); p++) {
        const ConcreteLoop &l = n.order[p];
        out.push_back({Directive::Kind::Parallel,
                       f.id,
                       int(si),
                       {{var_of(s, ss, l), s.loops[l.stage_loop].is_rvar}}});
    }
}

} // namespace

std::vector<Directive> make_directives(const PipelineDag &dag, const Decisions &d) {
    std::vector<Directive> out;
    for (const FuncNode &f : dag.funcs) {
        const FuncSched &fs = d[f.id];
        if (f.is_input_wrapper) continue;
        if (fs.placement == Placement::Inline) {
            out.push_back({Directive::Kind::ComputeInline, f.id, 0, {}});
            continue;
        }
        add_placement(dag, d, f, out);
        if (f.storage_reordered) {
            Directive st{Directive::Kind::ReorderStorage, f.id, 0, {}};
            for (const std::string &v : f.dims)
                st.vars.push_back({v, false});
            out.push_back(st);
        }
        for (size_t si = 0; si < f.stages.size(); si++) {
            const Stage &s = f.stages[si];
            const StageSched &ss = fs.stages[si];
            if (ss.rfactor) {
                // The loops the schedule gives the stage are the copies' (the merge keeps
                // Halide's default).
                const int r = outermost_rvar(s);
                Directive rf{Directive::Kind::Rfactor, f.id, int(si), {}};
                rf.vars = {{s.loops[size_t(r)].name, true},
                           {loop_var_name(s, ss, r, true), true},
                           {loop_var_name(s, ss, r, false), true},
                           {"rfactor_bands", false}};
                rf.factor = ss.loops[size_t(r)].tile;
                rf.tail = Tail::GuardWithIf;
                out.push_back(rf);
                continue;
            }
            add_splits(dag, f, si, ss, out);
            StageNest n = make_stage_nest(s, ss, s.full_loop_box());
            Directive re{Directive::Kind::Reorder, f.id, int(si), {}};
            // A loop unrolled inside the vectors: its first K points (K its estimated extent,
            // guarded) become the innermost loop; the rest, if the real extent is larger, run
            // where the loop was.
            LoopVar inside;
            if (ss.unrolled_inside >= 0) {
                const LoopDim &l = s.loops[size_t(ss.unrolled_inside)];
                inside = {l.name + "_ui", false};
                Directive sp{Directive::Kind::Split, f.id, int(si), {}};
                sp.vars = {{l.name, false}, {l.name, false}, inside};
                sp.factor = l.range.extent();
                sp.tail = Tail::GuardWithIf;
                out.push_back(sp);
                re.vars.push_back(inside);
            }
            for (auto it = n.order.rbegin(); it != n.order.rend(); ++it)
                re.vars.push_back({var_of(s, ss, *it), s.loops[it->stage_loop].is_rvar});
            // A one-loop reorder is a no-op, but marks the stage as scheduled for Halide.
            if (!re.vars.empty()) out.push_back(re);
            if (n.order.empty()) continue;
            add_vectors_and_unrolls(dag, f, si, ss, n, out);
            if (ss.unrolled_inside >= 0)
                out.push_back({Directive::Kind::Unroll, f.id, int(si), {inside}});
            add_parallel(dag, d, f, si, ss, n, out);
        }
    }
    return out;
}

} // namespace sextant
