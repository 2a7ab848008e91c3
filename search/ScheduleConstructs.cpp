#include "ScheduleConstructs.h"

#include "Directives.h"
#include "LoopNest.h"
#include "Tails.h"

#include <algorithm>

namespace sextant {

std::vector<std::string> schedule_constructs(const PipelineDag &dag, const Decisions &d) {
    std::vector<std::string> out;
    auto add = [&](const char *k) {
        if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    };
    for (size_t f = 0; f < d.size(); f++) {
        const FuncSched &fs = d[f];
        // Tiling constructs: a band (multi-level tiling), a split RVar, a rounded-up update
        // split.
        for (size_t si = 0; si < fs.stages.size(); si++) {
            if (fused_parallel_loops(dag, d, int(f), int(si)) >= 2) add("fused_parallel");
            if (fs.stages[si].unroll_outer >= 2) add("register_tile");
            if (fs.stages[si].rfactor) add("rfactor");
            if (fs.stages[si].unrolled_inside >= 0) add("unroll_inside");
            for (size_t i = 0; i < fs.stages[si].loops.size(); i++) {
                const LoopTiling &t = fs.stages[si].loops[i];
                if (t.mode != LoopMode::Split) continue;
                if (t.band > 0) add("band");
                if (dag.funcs[f].stages[si].loops[i].is_rvar) add("reduction_split");
                if (split_tail(dag, int(f), int(si), int(i)) == Tail::RoundUp) add("round_up");
            }
        }
        if (fs.placement != Placement::At) continue;
        if (fs.store_level >= 0 && fs.store_level < fs.at_level) {
            add("sliding");
            if (fs.at_stage > 0) add("sliding_update");
            // Over the inner part of a split: storage per tile, computed per row of it.
            const Stage &cs = dag.stage(fs.at_func, fs.at_stage);
            const StageSched &sched = d[size_t(fs.at_func)].stages[size_t(fs.at_stage)];
            Box64 box;
            for (const LoopDim &l : cs.loops)
                box.push_back(l.range);
            const StageNest sn = make_stage_nest(cs, sched, box);
            for (int lv = fs.store_level + 1; lv <= fs.at_level && lv < int(sn.order.size()); lv++)
                if (!sn.order[size_t(lv)].outer_part && !sn.order[size_t(lv)].band_part &&
                    sched.loops[size_t(sn.order[size_t(lv)].stage_loop)].mode == LoopMode::Split)
                    add("sliding_split");
        }
        if (fs.stack) add("stack");
        if (fs.at_stage > 0) add("in_update");
        if (d[size_t(fs.at_func)].placement == Placement::At) add("nested");
        // How far above its consumers: 0 = in a consumer, 1 = in the Func that holds one.
        int above = 0;
        for (const StageRef &r : effective_consumers(dag, d, int(f))) {
            int up = 0;
            for (int g = r.first; g != fs.at_func && d[size_t(g)].placement == Placement::At;
                 g = d[size_t(g)].at_func)
                up++;
            above = std::max(above, up);
        }
        if (above == 1) add("beside");
        if (above >= 2) add("walk_up");
    }
    return out;
}

} // namespace sextant
