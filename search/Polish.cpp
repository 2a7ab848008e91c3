#include "Polish.h"

#include "search/LoopNest.h"
#include "search/ScheduleText.h"
#include "search/SearchSpaceDetail.h"
#include "search/Tails.h"

#include <cmath>
#include <sstream>

namespace sextant {

namespace {

/** The same stage loops, outermost first, in both. */
bool same_order(const StageNest &a, const StageNest &b) {
    if (a.order.size() != b.order.size()) return false;
    for (size_t i = 0; i < a.order.size(); i++)
        if (a.order[i].stage_loop != b.order[i].stage_loop) return false;
    return true;
}

/** A polish's walk from the pick, one step at a time: the decisions so far and their cost as a
 * replay (the pick scored as its variants are), each step kept where `margin` cheaper. */
class Walk {
public:
    Walk(const SearchSpace &space, StateEvaluator &eval, StatePtr pick, double margin,
         PolishStats *stats)
        : best(std::move(pick)), d(best->decisions), space_(space), eval_(eval), margin_(margin),
          stats_(stats) {
        StatePtr base = space_.replay(to_schedule_text(space_.dag(), d));
        eval_.evaluate({base.get()});
        cost_ = base->cost;
    }

    /** Scores `t` whole (`label` names the step in the stats); kept (true) if `margin`
     * cheaper than the schedule so far. A schedule the replay refuses is skipped. */
    bool step(Decisions t, const std::string &label) {
        return try_step(std::move(t), label, cost_ * (1 - margin_), true);
    }

    /** As step(), kept if it costs at most `limit`. */
    bool step_within(Decisions t, const std::string &label, double limit) {
        return try_step(std::move(t), label, limit, false);
    }

    /** The cheapest of `ts` (each scored whole, labelled `label`), kept if it costs at most
     * `limit`. */
    bool cheapest_within(std::vector<Decisions> ts, const std::string &label, double limit) {
        StatePtr cheapest;
        size_t at = 0;
        for (size_t i = 0; i < ts.size(); i++) {
            StatePtr c = scored(ts[i], label);
            if (c && (!cheapest || c->cost < cheapest->cost)) cheapest = c, at = i;
        }
        return cheapest && keep(cheapest, std::move(ts[at]), limit, false);
    }

    double cost() const { return cost_; }

    StatePtr best; ///< the cheapest so far (the pick itself until a step is kept)
    Decisions d;   ///< its decisions

private:
    /** `t` replayed and scored, or null where the replay refuses it (e.g. another Func is
     * computed at one being inlined). */
    StatePtr scored(const Decisions &t, const std::string &label) {
        StatePtr c;
        try {
            c = space_.replay(to_schedule_text(space_.dag(), t));
        } catch (const std::exception &) {
            return nullptr;
        }
        eval_.evaluate({c.get()});
        if (stats_) {
            stats_->tried++;
            std::ostringstream o;
            o << label << " " << (cost_ - c->cost) / cost_ * 100 << "%";
            stats_->steps.push_back(o.str());
        }
        return c;
    }

    bool try_step(Decisions t, const std::string &label, double limit, bool strictly) {
        StatePtr c = scored(t, label);
        return c && keep(c, std::move(t), limit, strictly);
    }

    bool keep(StatePtr c, Decisions t, double limit, bool strictly) {
        if (strictly ? !(c->cost < limit) : !(c->cost <= limit)) return false;
        best = std::move(c);
        cost_ = best->cost;
        d = std::move(t);
        if (stats_) stats_->kept++;
        return true;
    }

    const SearchSpace &space_;
    StateEvaluator &eval_;
    double margin_;
    PolishStats *stats_;
    double cost_ = 0;
};

/** Calls `step(f, s, stage)` for each stage, in search order, of every Func whose loops may
 * move (loops_may_move, asked of the walk's decisions each time: a kept step replaces them). */
template <class Step> void each_movable_stage(const SearchSpace &space, const Walk &w, Step step) {
    for (int f : space.order()) {
        if (!loops_may_move(w.d, f)) continue;
        for (size_t s = 0; s < w.d[size_t(f)].stages.size(); s++)
            step(f, s, space.dag().stage(f, int(s)));
    }
}

} // namespace

StatePtr polish_unrolled_inside(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                                double margin, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Walk w(space, eval, std::move(best), margin, stats);
    for (int f : space.order()) {
        for (size_t s = 0; s < w.d[size_t(f)].stages.size(); s++) {
            const Stage &stage = dag.stage(f, int(s));
            const StageSched &ss = w.d[size_t(f)].stages[s];
            if (ss.unrolled_inside >= 0) continue;
            const int loop = unrolled_inside_loop(stage, ss);
            if (loop < 0 ||
                !unrolled_inside_fits_registers(stage, ss, loop, dag.machine.vector_bits))
                continue;
            Decisions t = w.d;
            t.mut(size_t(f)).stages[s].unrolled_inside = loop;
            if (!unrolled_inside_problem(dag, t, f, int(s), loop).empty()) continue;
            w.step(std::move(t), dag.funcs[size_t(f)].name + "." + std::to_string(s));
        }
    }
    return w.best;
}

StatePtr polish_narrowed(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                         double tolerance, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Walk w(space, eval, std::move(best), 0.0, stats);
    const double limit = w.cost() * (1 + tolerance);
    for (int f : space.order()) {
        const FuncNode &fn = dag.funcs[size_t(f)];
        if (w.d[size_t(f)].placement == Placement::Inline) continue;
        const int lanes = std::min(dag.machine.natural_vector_lanes(fn), 32);
        for (size_t s = 0; s < w.d[size_t(f)].stages.size(); s++) {
            // (Read from the best state each time: a kept step replaces it.)
            const FuncNest *nest = w.best->nests[size_t(f)].get();
            if (!nest || s >= nest->stages.size()) break;
            const StageSched &ss = w.d[size_t(f)].stages[s];
            // A register tile (several loops unrolled) is the schedule's point; a factored
            // reduction keeps its shape.
            if (ss.vector_width <= 1 || ss.unroll_outer > 1 || ss.rfactor ||
                nest->stages[s].order.empty())
                continue;
            if (ss.vector_width <= lanes && ss.unroll <= 1 && ss.unroll_outer == 0) continue;
            // Only a large body: its work (inlined Funcs included) x the registers a value of
            // its widest type takes over the lanes in flight, at least kNarrowedBodyWork.
            const Stage &stage = dag.stage(f, int(s));
            const double bytes = ss.vector_width * space.stage_copies(*w.best, f, int(s)) *
                                 stage.ops.widest_type_bytes();
            const double registers = std::ceil(bytes / std::max(1, dag.machine.vector_bits / 8));
            if (detail::expanded_work(dag, w.d, stage, kNarrowedBodyWork) * registers <
                kNarrowedBodyWork)
                continue;
            // A guarded split's vectors must be its whole inner part (SearchSpace's tilings).
            const int l = nest->stages[s].order.back().stage_loop;
            if (ss.loops[size_t(l)].mode == LoopMode::Split &&
                split_tail(dag, f, int(s), l) == Tail::GuardWithIf)
                continue;
            Decisions t = w.d;
            StageSched &n = t.mut(size_t(f)).stages[s];
            n.vector_width = std::min(ss.vector_width, lanes);
            n.unroll = 1;
            n.unroll_outer = 0;
            w.step_within(std::move(t), fn.name + "." + std::to_string(s), limit);
        }
    }
    return w.best;
}

StatePtr polish_row_sweeps(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                           double tolerance, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Walk w(space, eval, std::move(best), 0.0, stats);
    const double limit = w.cost() * (1 + tolerance);
    each_movable_stage(space, w, [&](int f, size_t s, const Stage &stage) {
        const StageSched &ss = w.d[size_t(f)].stages[s];
        if (ss.loops.size() < 2 || stage.loops[0].is_rvar || stage.loops[1].is_rvar ||
            stage.loops[0].func_dim != 0 || ss.unroll_outer > 0 || ss.unrolled_inside >= 0 ||
            ss.rfactor)
            return;
        // Column strips: the dense dimension's inner part innermost, the next loop
        // (whole, or its inner part) right outside it.
        const LoopTiling &x = ss.loops[0], &y = ss.loops[1];
        if (x.mode != LoopMode::Split || x.band != 0 ||
            (y.mode != LoopMode::Inner && y.mode != LoopMode::Split))
            return;
        // (Read from the best state each time: a kept step replaces it.)
        const FuncNest *nest = w.best->nests[size_t(f)].get();
        if (!nest || s >= nest->stages.size() || nest->stages[s].loop_box.size() < 2) return;
        std::vector<Decisions> rows;
        Decisions t = w.d;
        t.mut(size_t(f)).stages[s].loops[0] = LoopTiling{};
        rows.push_back(t); // whole rows; the loops outside as they were, less one
        if (y.mode == LoopMode::Inner) {
            // Whole rows in strips: the outer loops (a parallel one) keep their number.
            const int64_t rows_extent = nest->stages[s].loop_box[1].extent();
            for (int64_t tile : {8, 16, 32, 64, 128}) {
                if (tile >= rows_extent) break;
                LoopTiling strips;
                strips.mode = LoopMode::Split;
                strips.tile = tile;
                t.mut(size_t(f)).stages[s].loops[1] = strips;
                rows.push_back(t);
            }
        }
        w.cheapest_within(std::move(rows), dag.funcs[size_t(f)].name + "." + std::to_string(s),
                          limit);
    });
    return w.best;
}

StatePtr polish_storage_order(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                              double tolerance, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Walk w(space, eval, std::move(best), 0.0, stats);
    const double limit = w.cost() * (1 + tolerance);
    each_movable_stage(space, w, [&](int f, size_t s, const Stage &stage) {
        for (size_t l = 0; l < stage.loops.size(); l++) {
            const StageSched &ss = w.d[size_t(f)].stages[s];
            if (ss.unroll_outer > 0 || ss.rfactor || stage.loops[l].is_rvar ||
                l >= ss.loops.size() || ss.loops[l].mode != LoopMode::Outer)
                continue;
            Decisions t = w.d;
            t.mut(size_t(f)).stages[s].loops[l].mode = LoopMode::Inner;
            // Outer already where storage order puts it (no Inner or split loop outside
            // it): the same loops in the same order, nothing to put back.
            const FuncNest *nest = w.best->nests[size_t(f)].get();
            if (!nest || s >= nest->stages.size() ||
                same_order(
                    make_stage_nest(stage, ss, nest->stages[s].loop_box),
                    make_stage_nest(stage, t[size_t(f)].stages[s], nest->stages[s].loop_box)))
                continue;
            w.step_within(std::move(t),
                          dag.funcs[size_t(f)].name + "." + std::to_string(s) + "." +
                              stage.loops[l].name,
                          limit);
        }
    });
    return w.best;
}

StatePtr polish_inlined(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                        double margin, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Walk w(space, eval, std::move(best), margin, stats);
    // Sweeps until one keeps nothing: inlining one Func can make another's inlining pay.
    for (bool kept = true; kept;) {
        kept = false;
        for (int f : space.order()) {
            const FuncNode &fn = dag.funcs[size_t(f)];
            if (!fn.can_inline || fn.is_input_wrapper ||
                w.d[size_t(f)].placement == Placement::Inline)
                continue;
            Decisions t = w.d;
            const FuncSched home = w.d[size_t(f)];
            FuncSched inlined;
            inlined.placement = Placement::Inline;
            t.set(size_t(f), inlined);
            // The Funcs computed at it move to where it was computed.
            for (size_t g = 0; g < t.size(); g++) {
                if (t[g].placement != Placement::At || t[g].at_func != f) continue;
                FuncSched &m = t.mut(g);
                m.placement = home.placement;
                m.at_func = home.at_func;
                m.at_level = home.at_level;
                m.at_stage = home.at_stage;
                m.store_level = -1;
                m.stack = false;
            }
            kept |= w.step(std::move(t), fn.name);
        }
    }
    return w.best;
}

StatePtr polish_root_splits(const SearchSpace &space, StateEvaluator &eval,
                            const std::vector<StatePtr> &states, double margin,
                            PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    StatePtr best = space.replay(to_schedule_text(dag, states.front()->decisions));
    eval.evaluate({best.get()});
    const double pick = best->cost;
    for (const StatePtr &from : states) {
        const Decisions &d = from->decisions;
        for (size_t f = 0; f < d.size(); f++) {
            if (d[f].placement != Placement::Root) continue;
            for (size_t s = 0; s < d[f].stages.size(); s++) {
                const Stage &stage = dag.stage(int(f), int(s));
                const StageSched &ss = d[f].stages[s];
                if (ss.unroll_outer > 0) continue; // its inner parts are unrolled
                const FuncNest *nest = from->nests[f].get();
                if (!nest || s >= nest->stages.size() || nest->stages[s].order.empty()) continue;
                const int vector_loop = nest->stages[s].order.back().stage_loop;
                for (size_t l = 0; l < ss.loops.size(); l++) {
                    const LoopTiling &t = ss.loops[l];
                    if (t.mode != LoopMode::Split || t.band != 0 || stage.loops[l].is_rvar ||
                        int(l) == ss.unrolled_inside)
                        continue;
                    // The vector loop's inner part holds the vectors and their unrolled copies
                    // (as the search's tilings keep it): narrower, Halide grows the region,
                    // past the buffer of an output (sextant-fuzz seed 1011: `x:split32
                    // vector 32 unroll 2` wrote 32 points past the output's end).
                    const int64_t least = int(l) == vector_loop
                                              ? std::max<int64_t>(8, int64_t(ss.vector_width) *
                                                                         std::max(1, ss.unroll))
                                              : 8;
                    for (int64_t tile = least; tile < t.tile; tile *= 2) {
                        Decisions v = d;
                        v.mut(f).stages[s].loops[l].tile = tile;
                        StatePtr c;
                        try {
                            c = space.replay(to_schedule_text(dag, v));
                        } catch (const std::exception &) {
                            continue; // not a schedule the search would make
                        }
                        eval.evaluate({c.get()});
                        if (stats) stats->tried++;
                        if (c->cost < best->cost) best = c;
                    }
                }
            }
        }
    }
    if (best->cost < pick * (1 - margin)) {
        if (stats) stats->kept++;
        return best;
    }
    return states.front();
}

StatePtr polish_pick(const SearchSpace &space, StateEvaluator &eval, StatePtr pick,
                     const std::vector<StatePtr> &others, double margin,
                     const std::function<void(const std::string &)> &log) {
    StatePtr best = pick;
    auto report = [&](const char *what, const PolishStats &ps, double before) {
        if (!log) return;
        std::ostringstream o;
        o << "polish: " << ps.kept << " of " << ps.tried << " " << what << " kept; predicted "
          << before * 1e3 << " -> " << best->cost * 1e3 << " ms;";
        for (const std::string &st : ps.steps)
            o << " " << st;
        log(o.str());
    };
    PolishStats inlined, strips, rows, narrowed, unrolled, ordered;
    double before = best->cost;
    best = polish_inlined(space, eval, best, margin, &inlined);
    report("Funcs inlined", inlined, before);
    std::vector<StatePtr> from = {best};
    for (const StatePtr &b : others)
        if (b != pick) from.push_back(b);
    before = best->cost;
    best = polish_root_splits(space, eval, from, margin, &strips);
    report("finer splits of root Funcs", strips, before);
    before = best->cost;
    best = polish_row_sweeps(space, eval, best, kRowSweepsTolerance, &rows);
    report("column strips walked in rows", rows, before);
    before = best->cost;
    best = polish_narrowed(space, eval, best, kNarrowedTolerance, &narrowed);
    report("stages narrowed", narrowed, before);
    before = best->cost;
    best = polish_unrolled_inside(space, eval, best, margin, &unrolled);
    report("loops unrolled inside the vectors", unrolled, before);
    before = best->cost;
    best = polish_storage_order(space, eval, best, kStorageOrderTolerance, &ordered);
    report("loops put back in storage order", ordered, before);
    return best;
}

} // namespace sextant
