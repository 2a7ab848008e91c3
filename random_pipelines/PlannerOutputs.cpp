// Planner: choosing the outputs among the sinks, then compacting the plan (dropping dead
// stages and unused inputs/scalars, renumbering and renaming).
#include "random_pipelines/PlannerImpl.h"

#include <string>
#include <utility>

namespace sextant {
namespace random_pipelines {
namespace detail {

// ---- outputs -----------------------------------------------------------------------

void Planner::choose_outputs() {
    int n = int(spec_.stages.size());
    std::vector<bool> live(size_t(n), true);
    auto consumers = [&](int i) {
        int c = 0;
        for (int j = i + 1; j < n; j++) {
            if (!live[size_t(j)]) continue;
            for (int p : st(j).producers)
                c += p == i;
        }
        return c;
    };
    int max_outputs = std::max(1, std::min(3, opts_.max_outputs));
    for (;;) {
        std::vector<int> sinks;
        for (int i = 0; i < n; i++) {
            if (live[size_t(i)] && consumers(i) == 0) sinks.push_back(i);
        }
        // Drop, in this order: Tuple sinks, input-boundary sinks (when others exist),
        // then the oldest sinks beyond max_outputs.
        int victim = -1;
        for (int i : sinks) {
            if (st(i).tuple_size > 1) {
                victim = i;
                break;
            }
        }
        if (victim < 0 && int(sinks.size()) > 1) {
            for (int i : sinks) {
                if (st(i).kind == StageKind::InputBoundary) {
                    victim = i;
                    break;
                }
            }
        }
        if (victim < 0 && int(sinks.size()) > max_outputs) victim = sinks.front();
        if (victim < 0) {
            spec_.outputs = sinks;
            break;
        }
        live[size_t(victim)] = false;
    }
    compact(live);
    spec_.estimated_work = 0;
    for (int o : spec_.outputs)
        spec_.estimated_work += st(o).root_cost;
}

void Planner::compact(const std::vector<bool> &live) {
    std::vector<int> stage_map(spec_.stages.size(), -1);
    std::vector<StageSpec> stages;
    std::vector<bool> input_used(spec_.inputs.size(), false),
        scalar_used(spec_.scalars.size(), false);
    for (size_t i = 0; i < spec_.stages.size(); i++) {
        if (!live[i]) continue;
        stage_map[i] = int(stages.size());
        stages.push_back(spec_.stages[i]);
        for (int in : spec_.stages[i].inputs)
            input_used[size_t(in)] = true;
        for (int p : spec_.stages[i].scalars)
            scalar_used[size_t(p)] = true;
    }
    std::vector<int> input_map(spec_.inputs.size(), -1), scalar_map(spec_.scalars.size(), -1);
    std::vector<InputSpec> inputs;
    std::vector<ScalarSpec> scalars;
    for (size_t i = 0; i < spec_.inputs.size(); i++) {
        if (!input_used[i]) continue;
        input_map[i] = int(inputs.size());
        InputSpec in = spec_.inputs[i];
        in.name = "in" + std::to_string(inputs.size()) +
                  (in.role == InputRole::Weights ? "_weights"
                   : in.role == InputRole::Table ? "_table"
                                                 : "");
        inputs.push_back(in);
    }
    for (size_t i = 0; i < spec_.scalars.size(); i++) {
        if (!scalar_used[i]) continue;
        scalar_map[i] = int(scalars.size());
        ScalarSpec p = spec_.scalars[i];
        p.name = "p" + std::to_string(scalars.size()) + p.name.substr(p.name.find('_'));
        scalars.push_back(p);
    }
    for (size_t i = 0; i < stages.size(); i++) {
        StageSpec &s = stages[i];
        for (int &p : s.producers)
            p = stage_map[size_t(p)];
        for (int &p : s.inputs)
            p = input_map[size_t(p)];
        for (int &p : s.scalars)
            p = scalar_map[size_t(p)];
        s.name = "s" + std::to_string(i) + "_" + kind_name(s.kind);
    }
    for (int &o : spec_.outputs)
        o = stage_map[size_t(o)];
    spec_.stages = std::move(stages);
    spec_.inputs = std::move(inputs);
    spec_.scalars = std::move(scalars);
}

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
