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

} // namespace sextant
