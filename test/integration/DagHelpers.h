// Helpers of the DAG builder's tests: a pipeline's DAG, a Func of it, a stage's load.
#pragma once

#include "halide/DagBuilder.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace sextant::test {

inline sextant::PipelineDag build(const std::vector<Halide::Func> &outs) {
    std::vector<Halide::Internal::Function> fs;
    for (const Halide::Func &f : outs)
        fs.push_back(f.function());
    return sextant::build_pipeline_dag(fs, Halide::Target("x86-64-linux-avx2"),
                                       sextant::MachineInfo{});
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
