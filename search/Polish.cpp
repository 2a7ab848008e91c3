#include "Polish.h"

#include "search/LoopNest.h"
#include "search/ScheduleText.h"

#include <sstream>

namespace sextant {

StatePtr polish_unrolled_inside(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                                double margin, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Decisions d = best->decisions;
    // The pick as a replay scores it as its variants are scored.
    StatePtr base = space.replay(to_schedule_text(dag, d));
    eval.evaluate({base.get()});
    double cost = base->cost;
    for (int f : space.order()) {
        for (size_t s = 0; s < d[size_t(f)].stages.size(); s++) {
            const Stage &stage = dag.stage(f, int(s));
            const StageSched &ss = d[size_t(f)].stages[s];
            if (ss.unrolled_inside >= 0) continue;
            const int loop = unrolled_inside_loop(stage, ss);
            if (loop < 0 ||
                !unrolled_inside_fits_registers(stage, ss, loop, dag.machine.vector_bits))
                continue;
            Decisions t = d;
            t.mut(size_t(f)).stages[s].unrolled_inside = loop;
            if (!unrolled_inside_problem(dag, t, f, int(s), loop).empty()) continue;
            StatePtr c = space.replay(to_schedule_text(dag, t));
            eval.evaluate({c.get()});
            if (stats) {
                stats->tried++;
                std::ostringstream o;
                o << dag.funcs[size_t(f)].name << "." << s << " " << (cost - c->cost) / cost * 100
                  << "%";
                stats->steps.push_back(o.str());
            }
            if (c->cost < cost * (1 - margin)) {
                best = c;
                cost = c->cost;
                d = std::move(t);
                if (stats) stats->kept++;
            }
        }
    }
    return best;
}

StatePtr polish_inlined(const SearchSpace &space, StateEvaluator &eval, StatePtr best,
                        double margin, PolishStats *stats) {
    const PipelineDag &dag = space.dag();
    Decisions d = best->decisions;
    StatePtr base = space.replay(to_schedule_text(dag, d));
    eval.evaluate({base.get()});
    double cost = base->cost;
    // Sweeps until one keeps nothing: a Func another was computed at may go once that one has.
    for (bool kept = true; kept;) {
        kept = false;
        for (int f : space.order()) {
            const FuncNode &fn = dag.funcs[size_t(f)];
            if (!fn.can_inline || fn.is_input_wrapper ||
                d[size_t(f)].placement == Placement::Inline)
                continue;
            Decisions t = d;
            FuncSched inlined;
            inlined.placement = Placement::Inline;
            t.set(size_t(f), inlined);
            StatePtr c;
            try {
                c = space.replay(to_schedule_text(dag, t));
            } catch (const std::exception &) {
                continue; // another Func is computed at it, or the rules refuse it inlined
            }
            eval.evaluate({c.get()});
            if (stats) {
                stats->tried++;
                std::ostringstream o;
                o << fn.name << " " << (cost - c->cost) / cost * 100 << "%";
                stats->steps.push_back(o.str());
            }
            if (c->cost < cost * (1 - margin)) {
                best = c;
                cost = c->cost;
                d = std::move(t);
                kept = true;
                if (stats) stats->kept++;
            }
        }
    }
    return best;
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
    PolishStats inlined, strips, unrolled;
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
    best = polish_unrolled_inside(space, eval, best, margin, &unrolled);
    report("loops unrolled inside the vectors", unrolled, before);
    return best;
}

} // namespace sextant
