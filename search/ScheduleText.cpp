#include "ScheduleText.h"

#include "search/LoopNest.h"
#include "support/Errors.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

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
        case Placement::Undecided:
            o << "undecided\n";
            continue;
        case Placement::Inline:
            o << "inline\n";
            continue;
        case Placement::Root:
            o << "root\n";
            break;
        case Placement::At:
            o << "at " << dag.funcs[fs.at_func].name << " " << fs.at_level;
            if (fs.at_stage > 0) o << " update " << fs.at_stage;
            if (fs.store_level >= 0) o << " store " << fs.store_level;
            if (fs.stack) o << " stack";
            o << "\n";
            break;
        }
        for (size_t s = 0; s < fs.stages.size(); s++) {
            const StageSched &ss = fs.stages[s];
            o << "  stage " << s << " loops";
            for (size_t i = 0; i < ss.loops.size(); i++) {
                o << " " << fn.stages[s].loops[i].name << ":";
                switch (ss.loops[i].mode) {
                case LoopMode::Inner:
                    o << "inner";
                    break;
                case LoopMode::Outer:
                    o << "outer";
                    break;
                case LoopMode::Split:
                    o << "split";
                    if (ss.loops[i].band > 0) o << ss.loops[i].band << "/";
                    o << ss.loops[i].tile;
                    break;
                case LoopMode::Middle:
                    o << "middle";
                    break;
                }
            }
            o << " vector " << ss.vector_width << " unroll " << ss.unroll << " parallel "
              << ss.parallel;
            if (ss.unroll_outer == 1) o << " unroll_outer";
            if (ss.unroll_outer > 1) o << " unroll_outer " << ss.unroll_outer;
            if (ss.unrolled_inside >= 0)
                o << " unroll_inside " << fn.stages[s].loops[size_t(ss.unrolled_inside)].name;
            if (ss.rfactor) o << " rfactor";
            o << "\n";
        }
    }
    return o.str();
}

namespace {

/** Halide makes Func names unique per process ("blur$3"); a text written by another process
 * names the same Funcs with other suffixes. */
std::string base_name(const std::string &n) {
    std::string out;
    for (size_t i = 0; i < n.size(); i++) {
        if (n[i] == '$' && i + 1 < n.size() && std::isdigit(static_cast<unsigned char>(n[i + 1]))) {
            while (i + 1 < n.size() && std::isdigit(static_cast<unsigned char>(n[i + 1])))
                i++;
            continue;
        }
        out += n[i];
    }
    return out;
}

/** The first `$N` number in the name (-1 if none). */
long suffix_of(const std::string &n) {
    size_t dollar = n.find('$');
    while (dollar != std::string::npos) {
        if (dollar + 1 < n.size() && std::isdigit(static_cast<unsigned char>(n[dollar + 1])))
            return std::atol(n.c_str() + dollar + 1);
        dollar = n.find('$', dollar + 1);
    }
    return -1;
}

/** Maps the Func names a text uses to this DAG's Funcs: exact names first; otherwise Funcs
 * that share a base name are matched in order of their `$N` suffixes (Halide numbers them in
 * creation order, which is the same in every process that builds the pipeline). */
std::map<std::string, int> match_names(const PipelineDag &dag, const std::string &text) {
    std::vector<std::string> names;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string w, name, where, at;
        if (!(ls >> w) || w != "func" || !(ls >> name)) continue;
        names.push_back(name);
        if (ls >> where && where == "at" && ls >> at) names.push_back(at);
    }
    std::map<std::string, int> out;
    std::map<std::string, std::vector<std::string>> text_by_base;
    for (const std::string &n : names) {
        if (dag.find_func(n) >= 0)
            out[n] = dag.find_func(n);
        else
            text_by_base[base_name(n)].push_back(n);
    }
    auto by_suffix = [](const std::string &a, const std::string &b) {
        return suffix_of(a) < suffix_of(b);
    };
    for (auto &kv : text_by_base) {
        std::vector<std::string> &t = kv.second;
        std::sort(t.begin(), t.end(), by_suffix);
        t.erase(std::unique(t.begin(), t.end()), t.end());
        std::vector<std::string> d;
        for (const FuncNode &f : dag.funcs)
            if (base_name(f.name) == kv.first) d.push_back(f.name);
        std::sort(d.begin(), d.end(), by_suffix);
        if (d.size() != t.size()) continue; // cannot match: reported as unknown below
        for (size_t i = 0; i < t.size(); i++)
            out[t[i]] = dag.find_func(d[i]);
    }
    return out;
}

/** Throws the UserError for the line being parsed. */
struct LineError {
    const int &lineno;
    const std::string &line;
    [[noreturn]] void operator()(const std::string &why) const {
        throw UserError("schedule text line " + std::to_string(lineno) + ": " + why + ": '" + line +
                        "'");
    }
};

using FuncByName = std::function<int(const std::string &)>;

/** "func NAME inline|root|at CONSUMER LEVEL [update S] [store L] [stack]": the Func's placement;
 * returns the Func, which the stage lines that follow belong to. */
int parse_func_line(std::istringstream &ls, const PipelineDag &dag, const FuncByName &find,
                    Decisions &d, const LineError &bad) {
    std::string name, where;
    ls >> name >> where;
    const int cur = find(name);
    if (cur < 0) bad("no Func named '" + name + "' in this pipeline");
    FuncSched &fs = d.mut(cur);
    if (where == "inline") {
        fs.placement = Placement::Inline;
    } else if (where == "root") {
        fs.placement = Placement::Root;
    } else if (where == "at") {
        std::string c;
        ls >> c >> fs.at_level;
        fs.at_func = find(c);
        if (fs.at_func < 0 || !ls) bad("bad compute_at target");
        std::string kw;
        if (ls >> kw && kw == "update") {
            if (!(ls >> fs.at_stage) || fs.at_stage < 1 ||
                fs.at_stage >= int(dag.funcs[fs.at_func].stages.size()))
                bad("expected 'update S' naming an update stage of " + c);
            if (!(ls >> kw)) kw.clear();
        }
        if (kw == "store") {
            if (!(ls >> fs.store_level) || fs.store_level > fs.at_level)
                bad("expected 'store L' with L <= the compute level");
            if (!(ls >> kw)) kw.clear();
        }
        if (kw == "stack") {
            fs.stack = true;
            if (!(ls >> kw)) kw.clear();
        }
        if (!kw.empty()) bad("expected 'update S', 'store L' or 'stack', got '" + kw + "'");
        fs.placement = Placement::At;
    } else {
        bad("expected inline, root or at");
    }
    return cur;
}

/** "NAME:inner|outer|middle|splitT|splitB/T" for loop `l`. */
LoopTiling parse_loop(const std::string &tok, const LoopDim &l, const LineError &bad) {
    size_t colon = tok.rfind(':');
    if (colon == std::string::npos || tok.substr(0, colon) != l.name)
        bad("expected loop '" + l.name + "'");
    std::string m = tok.substr(colon + 1);
    LoopTiling t;
    if (m == "inner") {
        t.mode = LoopMode::Inner;
    } else if (m == "outer") {
        t.mode = LoopMode::Outer;
    } else if (m == "middle") {
        t.mode = LoopMode::Middle;
    } else if (m.rfind("split", 0) == 0) {
        t.mode = LoopMode::Split;
        // splitT, or splitB/T: bands of B points in tiles of T (multi-level).
        const std::string f = m.substr(5);
        const size_t slash = f.find('/');
        try {
            t.tile = std::stoll(f.substr(slash == std::string::npos ? 0 : slash + 1));
            if (slash != std::string::npos) t.band = std::stoll(f.substr(0, slash));
        } catch (const std::exception &) {
            bad("bad split factor '" + f + "'");
        }
        if (t.tile < 1) bad("split factor must be positive");
        if (slash != std::string::npos && (t.band <= t.tile || t.band % t.tile != 0 || l.is_rvar))
            bad("a band must be a multiple of its tile, larger than it, on a pure loop");
    } else {
        bad("bad loop mode '" + m + "'");
    }
    return t;
}

/** A split RVar's inner part runs with the middle RVars (LoopNest): the others must be there,
 * or Halide would see the reduction reordered. */
void check_rvar_split(const std::vector<LoopDim> &sl, const StageSched &ss, const LineError &bad) {
    int outer_rvar = -1;
    for (size_t i = 0; i < sl.size(); i++)
        if (sl[i].is_rvar) outer_rvar = int(i);
    bool rvar_split = false, rvar_elsewhere = false;
    for (size_t i = 0; i < sl.size(); i++) {
        if (!sl[i].is_rvar) continue;
        if (ss.loops[i].mode == LoopMode::Split) {
            if (int(i) != outer_rvar) bad("only the outermost RVar of a stage may be split");
            rvar_split = true;
        } else if (ss.loops[i].mode != LoopMode::Middle) {
            rvar_elsewhere = true;
        }
    }
    if (rvar_split && rvar_elsewhere) bad("a split RVar needs the stage's other RVars 'middle'");
}

/** "stage S loops L:MODE... vector N unroll N parallel N [unroll_outer [K]] [unroll_inside L]
 * [rfactor]" of Func
 * `cur`. */
void parse_stage_line(std::istringstream &ls, const PipelineDag &dag, int cur, Decisions &d,
                      const LineError &bad) {
    if (cur < 0) bad("stage before any func");
    int s = -1;
    std::string kw;
    ls >> s >> kw;
    const FuncNode &fn = dag.funcs[cur];
    if (s < 0 || s >= int(fn.stages.size()) || kw != "loops") bad("bad stage");
    FuncSched &fs = d.mut(cur);
    if (int(fs.stages.size()) != s) bad("stages out of order");
    StageSched ss;
    for (const LoopDim &l : fn.stages[s].loops) {
        std::string tok;
        ls >> tok;
        ss.loops.push_back(parse_loop(tok, l, bad));
    }
    check_rvar_split(fn.stages[s].loops, ss, bad);
    std::string k1, k2, k3;
    ls >> k1 >> ss.vector_width >> k2 >> ss.unroll >> k3 >> ss.parallel;
    if (k1 != "vector" || k2 != "unroll" || k3 != "parallel" || !ls)
        bad("expected 'vector N unroll N parallel N'");
    std::string extra;
    if (ls >> extra && extra == "unroll_outer") {
        ss.unroll_outer = 1;
        int loops = 0;
        if (ls >> loops) {
            if (loops < 1 || loops >= int(ss.loops.size()))
                bad("unroll_outer needs 1 to " + std::to_string(ss.loops.size() - 1) + " loops");
            ss.unroll_outer = loops;
        }
        ls.clear(); // a failed read of the count consumed nothing
        extra.clear();
        ls >> extra;
    }
    if (extra == "unroll_inside") {
        std::string name;
        ls >> name;
        for (size_t i = 0; i < fn.stages[s].loops.size(); i++)
            if (fn.stages[s].loops[i].name == name) ss.unrolled_inside = int(i);
        if (ss.unrolled_inside < 0) bad("unroll_inside: no loop '" + name + "' in this stage");
        extra.clear();
        ls >> extra;
    }
    if (extra == "rfactor") {
        ss.rfactor = true;
        extra.clear();
        ls >> extra;
    }
    if (!extra.empty()) bad("unexpected '" + extra + "'");
    fs.stages.push_back(ss);
}

/** Loops a stage's order has under `ss` (LoopNest's make_stage_nest): a split adds its outer
 * part, and its band part where it has one. */
int concrete_loops(const StageSched &ss) {
    int n = 0;
    for (const LoopTiling &t : ss.loops)
        n += t.mode != LoopMode::Split ? 1 : t.band > 0 ? 3 : 2;
    return n;
}

/** Where each Func's and stage's line is, for the checks after parsing. */
struct Lines {
    std::vector<int> func;               // per Func id: its "func" line (0 = none)
    std::vector<std::vector<int>> stage; // per Func id and stage: its "stage" line
    std::vector<std::string> text;       // every line, 1-based
    [[noreturn]] void fail(int lineno, const std::string &why) const {
        throw UserError("schedule text line " + std::to_string(lineno) + ": " + why + ": '" +
                        text[size_t(lineno)] + "'");
    }
};

/** Per stage: lanes, unrolling and parallel loops within what the loop order has. */
void check_stage(const PipelineDag &dag, int f, int s, const StageSched &ss, const Lines &at) {
    const int line = at.stage[size_t(f)][size_t(s)];
    const int loops = concrete_loops(ss);
    if (ss.vector_width < 1 || ss.vector_width > 1024)
        at.fail(line, "vector width must be 1 to 1024 lanes");
    if (ss.unroll < 1 || ss.unroll > 1024) at.fail(line, "unroll must be 1 to 1024");
    if (ss.parallel < 0 || ss.parallel > loops)
        at.fail(line, "parallel must be 0 to the stage's " + std::to_string(loops) + " loops");
    const Stage &st = dag.stage(f, s);
    if (ss.rfactor) {
        const std::string why = rfactor_problem(dag, f, s, ss);
        if (!why.empty()) at.fail(line, "rfactor: " + why);
    }
    // The innermost loop is the one vectorized: an RVar there only where Halide may.
    if (ss.vector_width > 1 && !st.loops.empty()) {
        size_t inner = 0; // the innermost stage loop that ends up innermost: the first Inner
                          // or Split pure loop, if any
        bool found = false;
        for (size_t i = 0; i < st.loops.size() && !found; i++) {
            const LoopMode m = ss.loops[i].mode;
            if (m == LoopMode::Inner || (m == LoopMode::Split && !st.loops[i].is_rvar)) {
                inner = i;
                found = true;
            }
        }
        if (found && !st.loops[inner].parallel_safe)
            at.fail(line, "loop '" + st.loops[inner].name +
                              "' is innermost and cannot be vectorized (its iterations depend "
                              "on each other); use vector 1");
    }
}

/** The placements after parsing: outputs at root, inlining only where Halide allows it, and
 * every compute_at at a loop that exists and encloses every use of the Func. */
void check_decisions(const PipelineDag &dag, const Decisions &d, const Lines &at) {
    // The chain of hosts of every Func must end at a root Func (no cycle), before anything
    // below walks it.
    for (const FuncNode &f : dag.funcs) {
        int g = f.id;
        for (size_t hops = 0; d[size_t(g)].placement == Placement::At; hops++) {
            if (hops > dag.funcs.size())
                at.fail(at.func[size_t(f.id)], "Funcs computed inside each other in a cycle");
            g = d[size_t(g)].at_func;
        }
    }
    // Consumers first (the search's order), so that a misplaced Func is named before its
    // producers, whose placement may be wrong only because of it.
    for (auto it = dag.funcs.rbegin(); it != dag.funcs.rend(); ++it) {
        const FuncNode &f = *it;
        const FuncSched &fs = d[f.id];
        const int line = at.func[size_t(f.id)];
        if (f.is_input_wrapper) continue;
        if (f.is_output && fs.placement != Placement::Root)
            at.fail(line, "Func '" + f.name + "' is an output of the pipeline: it must be root");
        if (fs.placement == Placement::Inline && !f.can_inline)
            at.fail(line, "Func '" + f.name +
                              "' cannot be inlined (it has an update definition or is an "
                              "output)");
        if (fs.placement == Placement::Inline && !fs.stages.empty())
            at.fail(at.stage[size_t(f.id)][0], "Func '" + f.name + "' is inlined: no stages");
        for (size_t s = 0; s < fs.stages.size(); s++) {
            check_stage(dag, f.id, int(s), fs.stages[s], at);
            if (fs.stages[s].rfactor && fs.placement != Placement::Root)
                at.fail(at.stage[size_t(f.id)][s],
                        "rfactor: Func '" + f.name + "' must be computed at root");
        }
        if (fs.placement != Placement::At) continue;
        const FuncNode &host = dag.funcs[size_t(fs.at_func)];
        const FuncSched &hs = d[size_t(fs.at_func)];
        if (fs.at_func == f.id) at.fail(line, "a Func cannot be computed inside itself");
        if (hs.placement != Placement::Root && hs.placement != Placement::At)
            at.fail(line,
                    "Func '" + host.name + "' is inlined, so nothing can be computed at its loops");
        if (fs.at_stage >= int(hs.stages.size())) at.fail(line, "no such stage of " + host.name);
        if (hs.stages[size_t(fs.at_stage)].rfactor)
            at.fail(line, "stage " + std::to_string(fs.at_stage) + " of " + host.name +
                              " is factored (rfactor): its loops run in copies of " + host.name +
                              ", and nothing can be computed inside them");
        const int loops = concrete_loops(hs.stages[size_t(fs.at_stage)]);
        if (fs.at_level < 0 || fs.at_level >= loops)
            at.fail(line, "level " + std::to_string(fs.at_level) + " is not a loop of '" +
                              host.name + "' (its loops are 0 to " + std::to_string(loops - 1) +
                              ", outermost first)");
        // Every use must be inside that loop: in that stage of the host, or in a Func
        // computed (through any chain) inside the same loop or deeper.
        for (const StageRef &use : effective_consumers(dag, d, f.id)) {
            bool enclosed = use.first == fs.at_func && use.second == fs.at_stage;
            for (int c = use.first; !enclosed && d[size_t(c)].placement == Placement::At;
                 c = d[size_t(c)].at_func) {
                const FuncSched &cs = d[size_t(c)];
                if (cs.at_func == fs.at_func) {
                    enclosed = cs.at_stage == fs.at_stage && cs.at_level >= fs.at_level;
                    break;
                }
            }
            if (!enclosed)
                at.fail(line, "Func '" + f.name + "' is used by '" +
                                  dag.funcs[size_t(use.first)].name +
                                  (use.second > 0 ? " (update " + std::to_string(use.second) + ")"
                                                  : std::string()) +
                                  "', which is not inside loop " + std::to_string(fs.at_level) +
                                  " of '" + host.name + "'");
        }
    }
    const StageProblem inside = first_unrolled_inside_problem(dag, d);
    if (inside.func >= 0)
        at.fail(at.stage[size_t(inside.func)][size_t(inside.stage)],
                "unroll_inside: " + inside.why);
}

} // namespace

Decisions parse_schedule_text(const PipelineDag &dag, const std::string &text) {
    const std::map<std::string, int> names = match_names(dag, text);
    const FuncByName find = [&](const std::string &n) {
        auto it = names.find(n);
        return it == names.end() ? -1 : it->second;
    };
    Decisions d(dag.funcs.size());
    for (const FuncNode &f : dag.funcs)
        if (f.is_input_wrapper) d.mut(f.id).placement = Placement::Inline;
    std::istringstream in(text);
    std::string line;
    int lineno = 0;
    const LineError bad{lineno, line};
    int cur = -1;
    Lines at;
    at.func.assign(dag.funcs.size(), 0);
    at.stage.resize(dag.funcs.size());
    at.text.push_back("");
    while (std::getline(in, line)) {
        lineno++;
        at.text.push_back(line);
        std::istringstream ls(line);
        std::string word;
        if (!(ls >> word)) continue;
        if (word == "sextant-schedule") {
            int v = 0;
            ls >> v;
            if (v != 1) bad("unsupported version");
        } else if (word == "func") {
            cur = parse_func_line(ls, dag, find, d, bad);
            if (at.func[size_t(cur)] != 0)
                bad("Func '" + dag.funcs[size_t(cur)].name + "' was already placed on line " +
                    std::to_string(at.func[size_t(cur)]));
            at.func[size_t(cur)] = lineno;
        } else if (word == "stage") {
            parse_stage_line(ls, dag, cur, d, bad);
            at.stage[size_t(cur)].push_back(lineno);
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
    check_decisions(dag, d, at);
    return d;
}

std::string schedule_hash(const std::string &text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
    return buf;
}

} // namespace sextant
