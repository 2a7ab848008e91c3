// Helpers of the integration tests: a pipeline's DAG (on the bench's machine if asked), a
// Func of it, a stage's load.
#pragma once

#include "halide/DagBuilder.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace sextant::test {

/** The bench's machine (`machine_params=2,16777216,40`): 2 cores, a 16 MiB last-level cache. */
inline sextant::MachineInfo two_cores() {
    sextant::MachineInfo machine;
    machine.parallelism = 2;
    machine.last_level_cache_bytes = 16 << 20;
    return machine;
}

inline sextant::PipelineDag build(const std::vector<Halide::Func> &outs,
                                  const sextant::MachineInfo &machine = sextant::MachineInfo{}) {
    std::vector<Halide::Internal::Function> fs;
    for (const Halide::Func &f : outs)
        fs.push_back(f.function());
    return sextant::build_pipeline_dag(fs, Halide::Target("x86-64-linux-avx2"), machine);
}

inline const sextant::FuncNode &func(const sextant::PipelineDag &dag, const std::string &name) {
    int id = dag.find_func(name);
    REQUIRE(id >= 0);
    return dag.funcs[id];
}

inline const sextant::Load &load_from(const sextant::Stage &s, const std::string &producer,
                                      const sextant::PipelineDag &dag, int nth = 0) {
    for (const sextant::Load &l : s.loads) {
        const std::string &n = l.kind == sextant::ProducerKind::Func ? dag.funcs[l.producer].name
                                                                     : dag.inputs[l.producer].name;
        if (n == producer && nth-- == 0) return l;
    }
    std::string names;
    for (const sextant::FuncNode &f : dag.funcs)
        names += f.name + " ";
    FAIL("no load from " << producer << "; funcs: " << names);
    return s.loads[0];
}

} // namespace sextant::test
