#include "ScheduleText.h"

#include "plugin/dag/Errors.h"

#include <sstream>

namespace sextant {

std::string to_schedule_text(const PipelineDag &dag, const Decisions &d) {
    std::ostringstream o;
    o << "sextant-schedule 1\n";
    for (int f = int(dag.funcs.size()) - 1; f >= 0; f--) {
        const FuncNode &fn = dag.funcs[f];
        if (fn.is_input_wrapper) continue;
        const FuncSched &fs = d[f];
        o << "func " << fn.name << " ";
        switch (fs.placement) {
        case Placement::Undecided: o << "undecided\n"; continue;
        case Placement::Inline: o << "inline\n"; continue;
        case Placement::Root: o << "root\n"; break;
        case Placement::At:
            o << "at " << dag.funcs[fs.at_func].name << " " << fs.at_level;
            if (fs.store_level >= 0) o << " store " << fs.store_level;
            o << "\n";
            break;
        }
        for (size_t s = 0; s < fs.stages.size(); s++) {
            const StageSched &ss = fs.stages[s];
            o << "  stage " << s << " loops";
            for (size_t i = 0; i < ss.loops.size(); i++) {
                o << " " << fn.stages[s].loops[i].name << ":";
                switch (ss.loops[i].mode) {
                case LoopMode::Inner: o << "inner"; break;
                case LoopMode::Outer: o << "outer"; break;
                case LoopMode::Split: o << "split" << ss.loops[i].tile; break;
                case LoopMode::Middle: o << "middle"; break;
                }
            }
            o << " vector " << ss.vector_width << " unroll " << ss.unroll << " parallel "
              << ss.parallel;
            if (ss.unroll_outer) o << " unroll_outer";
            o << "\n";
        }
    }
    return o.str();
}

Decisions parse_schedule_text(const PipelineDag &dag, const std::string &text) {
    Decisions d(dag.funcs.size());
    for (const FuncNode &f : dag.funcs)
        if (f.is_input_wrapper) d[f.id].placement = Placement::Inline;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    int cur = -1;
    auto bad = [&](const std::string &why) {
        throw UserError("schedule text line " + std::to_string(lineno) + ": " + why + ": '" +
                        line + "'");
    };
    while (std::getline(in, line)) {
        lineno++;
        std::istringstream ls(line);
        std::string word;
        if (!(ls >> word)) continue;
        if (word == "sextant-schedule") {
            int v = 0;
            ls >> v;
            if (v != 1) bad("unsupported version");
        } else if (word == "func") {
            std::string name, where;
            ls >> name >> where;
            cur = dag.find_func(name);
            if (cur < 0) bad("no Func named '" + name + "' in this pipeline");
            FuncSched &fs = d[cur];
            if (where == "inline") {
                fs.placement = Placement::Inline;
            } else if (where == "root") {
                fs.placement = Placement::Root;
            } else if (where == "at") {
                std::string c;
                ls >> c >> fs.at_level;
                fs.at_func = dag.find_func(c);
                if (fs.at_func < 0 || !ls) bad("bad compute_at target");
                std::string kw;
                if (ls >> kw) {
                    if (kw != "store" || !(ls >> fs.store_level) || fs.store_level > fs.at_level)
                        bad("expected 'store L' with L <= the compute level");
                }
                fs.placement = Placement::At;
            } else {
                bad("expected inline, root or at");
            }
        } else if (word == "stage") {
            if (cur < 0) bad("stage before any func");
            int s = -1;
            std::string kw;
            ls >> s >> kw;
            const FuncNode &fn = dag.funcs[cur];
            if (s < 0 || s >= int(fn.stages.size()) || kw != "loops") bad("bad stage");
            FuncSched &fs = d[cur];
            if (int(fs.stages.size()) != s) bad("stages out of order");
            StageSched ss;
            for (const LoopDim &l : fn.stages[s].loops) {
                std::string tok;
                ls >> tok;
                size_t colon = tok.rfind(':');
                if (colon == std::string::npos || tok.substr(0, colon) != l.name)
                    bad("expected loop '" + l.name + "'");
                std::string m = tok.substr(colon + 1);
                LoopTiling t;
                if (m == "inner") t.mode = LoopMode::Inner;
                else if (m == "outer") t.mode = LoopMode::Outer;
                else if (m == "middle") t.mode = LoopMode::Middle;
                else if (m.rfind("split", 0) == 0) {
                    t.mode = LoopMode::Split;
                    t.tile = std::stoll(m.substr(5));
                    if (t.tile < 1) bad("split factor must be positive");
                } else bad("bad loop mode '" + m + "'");
                ss.loops.push_back(t);
            }
            std::string k1, k2, k3;
            ls >> k1 >> ss.vector_width >> k2 >> ss.unroll >> k3 >> ss.parallel;
            if (k1 != "vector" || k2 != "unroll" || k3 != "parallel" || !ls)
                bad("expected 'vector N unroll N parallel N'");
            std::string extra;
            if (ls >> extra) {
                if (extra != "unroll_outer") bad("unexpected '" + extra + "'");
                ss.unroll_outer = true;
            }
            fs.stages.push_back(ss);
        } else {
            bad("unknown keyword '" + word + "'");
        }
    }
    for (const FuncNode &f : dag.funcs) {
        const FuncSched &fs = d[f.id];
        if (fs.placement == Placement::Undecided)
            throw UserError("schedule text has no decision for Func '" + f.name + "'");
        bool computed = fs.placement == Placement::Root || fs.placement == Placement::At;
        if (computed && fs.stages.size() != f.stages.size())
            throw UserError("schedule text lacks stages of Func '" + f.name + "'");
    }
    return d;
}

} // namespace sextant
