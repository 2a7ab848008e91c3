// RootScheduler: a trivial Halide 14 autoscheduler plugin ("BenchRoot") used to build the
// reference version of every bench pipeline. It computes every non-output Func at root, in
// serial, unvectorized, so that no Func is recomputed: a slow but predictable schedule whose
// output the other schedulers are checked against. It is not a performance baseline.
#include "Halide.h"

#include <set>
#include <sstream>

namespace {

using namespace Halide;

void schedule_all_at_root(const Pipeline &pipeline, const Target &target,
                          const MachineParams &params, AutoSchedulerResults *results) {
    std::set<std::string> outputs;
    std::map<std::string, Internal::Function> all;
    for (const Func &out : pipeline.outputs()) {
        outputs.insert(out.name());
        for (const auto &entry : Internal::find_transitive_calls(out.function())) {
            all.emplace(entry.first, entry.second);
        }
    }
    std::ostringstream source;
    source << "// BenchRoot: every non-output Func computed at root.\n";
    for (const auto &entry : all) {
        if (outputs.count(entry.first)) continue;
        Func(entry.second).compute_root();
        source << "// " << entry.first << ".compute_root();\n";
    }
    results->scheduler_name = "BenchRoot";
    results->target = target;
    results->machine_params_string = params.to_string();
    results->schedule_source = source.str();
}

struct RegisterRootScheduler {
    RegisterRootScheduler() { Pipeline::add_autoscheduler("BenchRoot", schedule_all_at_root); }
} register_root_scheduler;

} // namespace
