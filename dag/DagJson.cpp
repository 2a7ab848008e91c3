#include "DagJson.h"

namespace sextant {

namespace {

nlohmann::json box_json(const Box64 &b) {
    nlohmann::json j = nlohmann::json::array();
    for (const Interval64 &i : b)
        j.push_back({i.min, i.max});
    return j;
}

nlohmann::json histogram_json(const OpHistogram &h) {
    nlohmann::json j = nlohmann::json::object();
    for (int k = 0; k < kNumOpKinds; k++) {
        for (int t = 0; t < kNumTypeClasses; t++) {
            int32_t c = h.at(OpKind(k), TypeClass(t));
            if (c)
                j[std::string(op_kind_name(OpKind(k))) + "." + type_class_name(TypeClass(t))] = c;
        }
    }
    return j;
}

std::string producer_name(const PipelineDag &dag, ProducerKind kind, int id) {
    return kind == ProducerKind::Func ? dag.funcs[id].name : dag.inputs[id].name;
}

} // namespace

nlohmann::json dag_to_json(const PipelineDag &dag) {
    nlohmann::json j;
    j["machine"] = {{"parallelism", dag.machine.parallelism},
                    {"last_level_cache_bytes", dag.machine.last_level_cache_bytes},
                    {"balance", dag.machine.balance},
                    {"vector_bits", dag.machine.vector_bits}};
    for (const InputNode &in : dag.inputs) {
        j["inputs"].push_back({{"name", in.name},
                               {"type", type_class_name(in.type)},
                               {"bounds", box_json(in.bounds)},
                               {"buffer", box_json(in.buffer)}});
    }
    for (const FuncNode &f : dag.funcs) {
        nlohmann::json jf;
        jf["id"] = f.id;
        jf["name"] = f.name;
        jf["dims"] = f.dims;
        for (TypeClass t : f.value_types)
            jf["types"].push_back(type_class_name(t));
        jf["output"] = f.is_output;
        jf["can_inline"] = f.can_inline;
        if (f.is_input_wrapper) jf["input_wrapper"] = true;
        if (f.fixed_region) jf["fixed_region"] = true;
        jf["bounds"] = box_json(f.bounds);
        jf["consumers"] = f.consumers;
        for (const Stage &s : f.stages) {
            nlohmann::json js;
            js["name"] = s.name;
            for (const LoopDim &l : s.loops) {
                js["loops"].push_back({{"name", l.name},
                                       {"rvar", l.is_rvar},
                                       {"func_dim", l.func_dim},
                                       {"range", {l.range.min, l.range.max}},
                                       {"parallel_safe", l.parallel_safe}});
                if (l.parity_mod > 0) js["loops"].back()["parity_mod"] = l.parity_mod;
                if (l.fixed_range) js["loops"].back()["fixed_range"] = true;
            }
            js["ops"] = histogram_json(s.ops);
            if (s.scalarized_calls > 0) js["scalarized_calls"] = s.scalarized_calls;
            if (s.can_rfactor) js["can_rfactor"] = true;
            if (s.no_vectorize) js["no_vectorize"] = true;
            if (s.masked_lanes) js["masked_lanes"] = true;
            for (const Load &ld : s.loads) {
                nlohmann::json jl;
                jl["from"] = producer_name(dag, ld.kind, ld.producer);
                jl["self"] = ld.self;
                jl["count"] = ld.count;
                jl["data_dependent"] = ld.data_dependent;
                nlohmann::json jac = nlohmann::json::array();
                for (int p = 0; p < ld.producer_dims; p++) {
                    nlohmann::json row = nlohmann::json::array();
                    for (int l = 0; l < ld.loop_dims; l++) {
                        const JacobianEntry &e = ld.at(p, l);
                        if (!e.affine)
                            row.push_back("?");
                        else if (e.den == 1)
                            row.push_back(e.num);
                        else
                            row.push_back(std::to_string(e.num) + "/" + std::to_string(e.den));
                    }
                    jac.push_back(row);
                }
                jl["jacobian"] = jac;
                if (!ld.clamps.empty()) {
                    jl["index_clamps"] = ld.clamps;
                    jl["likely"] = ld.likely;
                }
                js["loads"].push_back(jl);
            }
            for (int e : s.edges_in) {
                const Edge &edge = dag.edges[e];
                nlohmann::json je;
                je["producer"] = producer_name(dag, edge.kind, edge.producer);
                je["calls"] = edge.calls;
                for (size_t d = 0; d < edge.min.size(); d++) {
                    je["footprint"].push_back({edge.min[d].to_string(), edge.max[d].to_string()});
                }
                js["edges_in"].push_back(je);
            }
            jf["stages"].push_back(js);
        }
        j["funcs"].push_back(jf);
    }
    j["outputs"] = dag.outputs;
    return j;
}

} // namespace sextant
