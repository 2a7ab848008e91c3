#include "ScheduleApplier.h"

#include <sstream>

namespace sextant {

using namespace Halide;

namespace {

VarOrRVar var_of(const LoopVar &v) {
    if (v.is_rvar) return VarOrRVar(RVar(v.name));
    return VarOrRVar(Var(v.name));
}

std::string var_src(const LoopVar &v) {
    return std::string(v.is_rvar ? "::Halide::RVar(\"" : "::Halide::Var(\"") + v.name + "\")";
}

/** `{Var("a"), Var("b")}`: a braced list of the loop vars, as reorder and reorder_storage take. */
std::string var_list_src(const std::vector<LoopVar> &vars) {
    std::string s = "{";
    for (size_t i = 0; i < vars.size(); i++)
        s += (i ? ", " : "") + var_src(vars[i]);
    return s + "}";
}

std::string identifier(const std::string &name) {
    // Prefixed so that no Func name can clash with the surrounding function's names.
    std::string s = "f_";
    for (char c : name)
        s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return s;
}

} // namespace

std::map<std::string, Func> funcs_by_name(const std::vector<Internal::Function> &outputs) {
    std::map<std::string, Func> m;
    for (const Internal::Function &o : outputs)
        for (const auto &kv : Internal::find_transitive_calls(o))
            m.emplace(kv.first, Func(kv.second));
    return m;
}

void apply_directives(const PipelineDag &dag, const std::vector<Directive> &directives,
                      std::map<std::string, Func> &funcs) {
    using K = Directive::Kind;
    for (const Directive &d : directives) {
        Func f = funcs.at(dag.funcs[d.func].name);
        Halide::Stage st = d.stage == 0 ? Halide::Stage(f) : f.update(d.stage - 1);
        TailStrategy tail = d.tail == Tail::GuardWithIf ? TailStrategy::GuardWithIf
                            : d.tail == Tail::RoundUp   ? TailStrategy::RoundUp
                                                        : TailStrategy::Auto;
        switch (d.kind) {
        case K::ComputeInline:
            f.compute_inline();
            break;
        case K::ComputeRoot:
            f.compute_root();
            break;
        case K::ComputeAt:
            f.compute_at(LoopLevel(funcs.at(dag.funcs[d.at_func].name), var_of(d.vars[0])));
            break;
        case K::StoreAt:
            f.store_at(LoopLevel(funcs.at(dag.funcs[d.at_func].name), var_of(d.vars[0])));
            break;
        case K::StoreInStack:
            f.store_in(Halide::MemoryType::Stack);
            break;
        case K::ReorderStorage: {
            std::vector<Var> vs;
            for (const LoopVar &v : d.vars)
                vs.emplace_back(v.name);
            f.reorder_storage(vs);
            break;
        }
        case K::Split:
            st.split(var_of(d.vars[0]), var_of(d.vars[1]), var_of(d.vars[2]), int(d.factor), tail);
            break;
        case K::Reorder: {
            std::vector<VarOrRVar> vs;
            for (const LoopVar &v : d.vars)
                vs.push_back(var_of(v));
            st.reorder(vs);
            break;
        }
        case K::Vectorize:
            st.vectorize(var_of(d.vars[0]), int(d.factor), tail);
            break;
        case K::Unroll:
            if (d.factor == 0)
                st.unroll(var_of(d.vars[0]));
            else
                st.unroll(var_of(d.vars[0]), int(d.factor), tail);
            break;
        case K::Fuse:
            st.fuse(var_of(d.vars[0]), var_of(d.vars[1]), var_of(d.vars[2]));
            break;
        case K::Parallel:
            st.parallel(var_of(d.vars[0]));
            break;
        case K::Rfactor: {
            Func copies = st.split(RVar(d.vars[0].name), RVar(d.vars[1].name), RVar(d.vars[2].name),
                                   int(d.factor), tail)
                              .rfactor(RVar(d.vars[1].name), Var(d.vars[3].name));
            copies.compute_root();
            copies.update(0).parallel(Var(d.vars[3].name));
            break;
        }
        }
    }
}

std::string schedule_source(const PipelineDag &dag, const std::vector<Directive> &directives,
                            const std::string &schedule_text, const std::string &header_comment) {
    using K = Directive::Kind;
    std::ostringstream o;
    // Halide wraps this text in `inline void apply_schedule_NAME(Pipeline pipeline, Target
    // target)`.
    o << "// " << header_comment << "\n//\n// Decisions (ScheduleText):\n";
    std::istringstream lines(schedule_text);
    std::string line;
    while (std::getline(lines, line))
        o << "//   " << line << "\n";
    o << "std::map<std::string, ::Halide::Func> funcs;\n"
      << "for (::Halide::Func out : pipeline.outputs())\n"
      << "    for (const auto &kv : ::Halide::Internal::find_transitive_calls(out.function()))\n"
      << "        funcs.emplace(kv.first, ::Halide::Func(kv.second));\n";
    std::vector<bool> declared(dag.funcs.size(), false);
    auto fname = [&](int id) {
        std::string v = identifier(dag.funcs[id].name);
        if (!declared[id]) {
            declared[id] = true;
            o << "::Halide::Func " << v << " = funcs.at(\"" << dag.funcs[id].name << "\");\n";
        }
        return v;
    };
    for (const Directive &d : directives) {
        std::string f = fname(d.func);
        if (d.kind == K::ComputeAt || d.kind == K::StoreAt) fname(d.at_func);
        std::string st = d.stage == 0 ? f : f + ".update(" + std::to_string(d.stage - 1) + ")";
        std::string tail = d.tail == Tail::GuardWithIf ? ", ::Halide::TailStrategy::GuardWithIf"
                           : d.tail == Tail::RoundUp   ? ", ::Halide::TailStrategy::RoundUp"
                                                       : "";
        switch (d.kind) {
        case K::ComputeInline:
            o << f << ".compute_inline();";
            break;
        case K::ComputeRoot:
            o << f << ".compute_root();";
            break;
        case K::ComputeAt:
            o << f << ".compute_at(" << identifier(dag.funcs[d.at_func].name) << ", "
              << var_src(d.vars[0]) << ");";
            break;
        case K::StoreAt:
            o << f << ".store_at(" << identifier(dag.funcs[d.at_func].name) << ", "
              << var_src(d.vars[0]) << ");";
            break;
        case K::StoreInStack:
            o << f << ".store_in(::Halide::MemoryType::Stack);";
            break;
        case K::ReorderStorage:
            o << f << ".reorder_storage(" << var_list_src(d.vars) << ");";
            break;
        case K::Split:
            o << st << ".split(" << var_src(d.vars[0]) << ", " << var_src(d.vars[1]) << ", "
              << var_src(d.vars[2]) << ", " << d.factor << tail << ");";
            break;
        case K::Reorder:
            o << st << ".reorder(" << var_list_src(d.vars) << ");";
            break;
        case K::Vectorize:
            o << st << ".vectorize(" << var_src(d.vars[0]) << ", " << d.factor << tail << ");";
            break;
        case K::Unroll:
            if (d.factor == 0)
                o << st << ".unroll(" << var_src(d.vars[0]) << ");";
            else
                o << st << ".unroll(" << var_src(d.vars[0]) << ", " << d.factor << tail << ");";
            break;
        case K::Fuse:
            o << st << ".fuse(" << var_src(d.vars[0]) << ", " << var_src(d.vars[1]) << ", "
              << var_src(d.vars[2]) << ");";
            break;
        case K::Parallel:
            o << st << ".parallel(" << var_src(d.vars[0]) << ");";
            break;
        case K::Rfactor: {
            const std::string copies = f + "_copies_" + std::to_string(d.stage);
            o << "::Halide::Func " << copies << " = " << st << ".split(" << var_src(d.vars[0])
              << ", " << var_src(d.vars[1]) << ", " << var_src(d.vars[2]) << ", " << d.factor
              << tail << ").rfactor(" << var_src(d.vars[1]) << ", " << var_src(d.vars[3]) << ");\n"
              << copies << ".compute_root();\n"
              << copies << ".update(0).parallel(" << var_src(d.vars[3]) << ");";
            break;
        }
        }
        o << "\n";
    }
    o << "(void)target;\n";
    return o.str();
}

} // namespace sextant
