#include "DagBuilder.h"
#include "StorageOrder.h"

#include "CodegenQuirks.h"
#include "IRAnalysis.h"
#include "ScheduleApplier.h"
#include "search/Schedule.h"
#include "search/Tails.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace sextant {

using namespace Halide;
using namespace Halide::Internal;

namespace {

std::string min_name(const std::string &loop) {
    return "sextant$" + loop + ".min";
}
std::string max_name(const std::string &loop) {
    return "sextant$" + loop + ".max";
}

/** Everything a definition evaluates: values, non-trivial LHS args, and predicates. */
std::vector<Expr> definition_exprs(const Definition &def, bool is_update) {
    std::vector<Expr> exprs = def.values();
    if (is_update) {
        for (const Expr &a : def.args())
            exprs.push_back(a);
        for (const Expr &p : def.split_predicate())
            exprs.push_back(p);
    }
    return exprs;
}

class Builder {
public:
    /** `argument_order`: every Func's dimensions in the order of its arguments, whatever its
     * storage order (build_pipeline_dag's first pass). */
    Builder(const std::vector<Function> &outputs, const Target &target, MachineInfo machine,
            bool argument_order = false)
        : outputs_(outputs), target_(target), argument_order_(argument_order) {
        dag_.machine = machine;
        dag_.machine.vector_bits = std::max(64, target.natural_vector_size(UInt(8)) * 8);
        dag_.machine.max_buffer_bytes = target.has_large_buffers()
                                            ? std::numeric_limits<int64_t>::max()
                                            : int64_t(std::numeric_limits<int32_t>::max());
    }

    PipelineDag build() {
        if (target_.has_gpu_feature()) {
            throw UserError("Sextant schedules CPU pipelines only; the target '" +
                            target_.to_string() + "' has a GPU feature. Use a CPU target.");
        }
        for (const Function &f : outputs_) {
            for (const auto &kv : find_transitive_calls(f))
                env_.emplace(kv.first, kv.second);
        }
        std::vector<std::string> order = realization_order(outputs_, env_).first;
        for (const std::string &name : order) {
            const Function &f = env_.at(name);
            if (f.has_extern_definition()) {
                throw UserError("Func '" + name +
                                "' is an extern stage (define_extern); Sextant does not "
                                "schedule pipelines with extern stages yet.");
            }
        }
        value_bounds_ = compute_function_value_bounds(order, env_);
        for (const std::string &name : order)
            add_func(env_.at(name));
        for (const Function &f : outputs_) {
            int id = dag_.find_func(f.name());
            dag_.funcs[id].is_output = true;
            dag_.funcs[id].can_inline = false;
            dag_.outputs.push_back(id);
        }
        // Consumers before producers: each Func's bounds are final before its stages are
        // analysed, because all its consumers come later in realization order.
        for (int i = int(dag_.funcs.size()) - 1; i >= 0; i--) {
            set_func_bounds(i);
            for (size_t s = 0; s < dag_.funcs[i].stages.size(); s++)
                analyse_stage(i, int(s));
        }
        for (InputNode &in : dag_.inputs)
            finish_input(in);
        dag_.link();
        return std::move(dag_);
    }

    /** Whether a Func's storage order was left out (argument_order). */
    bool reordered_storage() const { return reordered_storage_; }

private:
    std::vector<Function> outputs_;
    Target target_;
    PipelineDag dag_;
    std::map<std::string, Function> env_;
    FuncValueBounds value_bounds_;
    std::map<std::string, int> input_ids_;
    std::map<std::string, Parameter> input_params_;
    std::vector<Box64> required_; // per func: union of regions its consumers need
    bool argument_order_ = false;
    bool reordered_storage_ = false; // some Func's storage is not in its arguments' order
    std::map<std::string, std::vector<int>> positions_;

    /** Per argument of `f`, its storage position (the identity for an output: its storage is
     * the caller's buffer). */
    const std::vector<int> &positions(const Function &f) {
        auto it = positions_.find(f.name());
        if (it != positions_.end()) return it->second;
        const bool output = std::any_of(outputs_.begin(), outputs_.end(),
                                        [&](const Function &o) { return o.name() == f.name(); });
        std::vector<int> pos = storage_positions(f), args(pos.size());
        std::iota(args.begin(), args.end(), 0);
        if (!output) reordered_storage_ |= pos != args;
        return positions_.emplace(f.name(), output || argument_order_ ? args : pos).first->second;
    }

    /** A pure copy of an input's wrapper: BoundaryConditions' `lambda_0(_0, _1) = in(_0, _1)`
     * under `repeat_edge(x, y) = lambda_0(clamp(x), clamp(y))`. Computed anywhere but inline
     * it only copies the input, so it is treated as the wrapper: always inlined, one Func less
     * for the search. (Inside a consumer's loops it also read the input before its start at
     * the image's edge; that hazard is any unclamped input reader's under a clamp, kept out of
     * consumers' loops by shrinks_at_edges, search/Tails.h.) */
    bool copies_input(const Call &c, const Function &f) const {
        if (c.call_type != Call::Halide || c.args.size() != f.args().size()) return false;
        const int producer = dag_.find_func(c.name);
        if (producer < 0 || !dag_.funcs[size_t(producer)].is_input_wrapper) return false;
        for (size_t i = 0; i < c.args.size(); i++) {
            const Variable *v = c.args[i].as<Variable>();
            if (!v || v->name != f.args()[i]) return false;
        }
        return true;
    }

    void add_func(const Function &f) {
        FuncNode node;
        node.id = int(dag_.funcs.size());
        node.name = f.name();
        const std::vector<int> &pos = positions(f);
        node.dims = f.args();
        for (size_t a = 0; a < pos.size(); a++) {
            node.dims[size_t(pos[a])] = f.args()[a];
            node.storage_reordered |= pos[a] != int(a);
        }
        for (const Type &t : f.output_types()) {
            node.value_types.push_back(type_class(t));
            node.bytes_per_point += t.bytes();
        }
        node.can_inline = f.updates().empty();
        if (node.can_inline && f.values().size() == 1) {
            const Call *c = f.values()[0].as<Call>();
            node.is_input_wrapper = c && (c->call_type == Call::Image || copies_input(*c, f));
        }
        node.stages.push_back(make_stage(f, node.id, 0, f.definition()));
        for (size_t u = 0; u < f.updates().size(); u++)
            node.stages.push_back(make_stage(f, node.id, int(u) + 1, f.updates()[u]));
        dag_.funcs.push_back(std::move(node));
        required_.emplace_back(f.args().size());
    }

    Stage make_stage(const Function &f, int func_id, int index, const Definition &def) {
        Stage s;
        s.func = func_id;
        s.index = index;
        s.name = index == 0 ? f.name() : f.name() + ".update(" + std::to_string(index - 1) + ")";
        for (const Dim &d : def.schedule().dims()) {
            if (d.var == Var::outermost().name()) continue;
            LoopDim l;
            l.name = d.var;
            l.is_rvar = d.is_rvar();
            if (!l.is_rvar) {
                for (size_t a = 0; a < def.args().size(); a++) {
                    const Variable *v = def.args()[a].as<Variable>();
                    if (v && v->name == d.var) l.func_dim = positions(f)[a];
                }
            }
            s.loops.push_back(l);
        }
        s.can_rfactor = index > 0 && can_rfactor(f, def);
        if (s.loops.size() > kMaxStageLoops) {
            throw UserError(s.name + " has " + std::to_string(s.loops.size()) +
                            " loops (pure dimensions plus RVars); Sextant supports at most " +
                            std::to_string(kMaxStageLoops) + ".");
        }
        return s;
    }

    /** Stage::can_rfactor for update `def` of `f`. */
    static bool can_rfactor(const Function &f, const Definition &def) {
        const std::vector<ReductionVariable> &rvars = def.schedule().rvars();
        if (rvars.empty()) return false;
        if (def.predicate().defined() && !is_const_one(def.predicate())) return false;
        for (const ReductionVariable &a : rvars)
            for (const ReductionVariable &b : rvars)
                if (expr_uses_var(a.min, b.var) || expr_uses_var(a.extent, b.var)) return false;
        const AssociativeOp op = prove_associativity(f.name(), def.args(), def.values());
        return op.associative() && op.commutative();
    }

    [[noreturn]] void fail(const std::string &msg) { throw UserError(msg); }

    void set_func_bounds(int id) {
        FuncNode &node = dag_.funcs[id];
        const Function &f = env_.at(node.name);
        if (node.is_output) {
            node.bounds.assign(node.dims.size(), Interval64());
            for (size_t d = 0; d < node.dims.size(); d++) {
                Expr mn, ext;
                for (const Bound &b : f.schedule().estimates()) {
                    if (b.var == node.dims[d]) {
                        mn = b.min;
                        ext = b.extent;
                    }
                }
                if (!mn.defined() || !ext.defined()) {
                    for (const Parameter &p : f.output_buffers()) {
                        if (!mn.defined()) mn = p.min_constraint_estimate(int(d));
                        if (!ext.defined()) ext = p.extent_constraint_estimate(int(d));
                    }
                }
                int64_t lo, extent;
                if (!mn.defined() || !ext.defined() || !const_int(estimated(mn, node.name), &lo) ||
                    !const_int(estimated(ext, node.name), &extent)) {
                    fail("Output Func '" + node.name + "' has no estimate for dimension " +
                         std::to_string(d) + " ('" + node.dims[d] + "'). Add one with " +
                         node.name + ".set_estimate(" + node.dims[d] +
                         ", min, extent) (in a Generator: output.set_estimates({{min, "
                         "extent}, ...})).");
                }
                node.bounds[d] = {lo, lo + extent - 1};
            }
            for (size_t d = 0; d < node.dims.size(); d++)
                node.bounds[d].include(required_[id][d]);
        } else {
            node.bounds = required_[id];
            for (size_t d = 0; d < node.bounds.size(); d++) {
                if (node.bounds[d].empty()) {
                    fail("Internal: Func '" + node.name + "' dimension " + std::to_string(d) +
                         " is required by no consumer");
                }
            }
        }
        // Loop ranges of the pure definition and of updates' pure vars.
        for (size_t si = 0; si < node.stages.size(); si++) {
            Stage &s = node.stages[si];
            const Definition &def = si == 0 ? f.definition() : f.updates()[si - 1];
            for (LoopDim &l : s.loops) {
                if (l.is_rvar) {
                    for (const ReductionVariable &rv : def.schedule().rvars()) {
                        if (rv.var != l.name) continue;
                        int64_t lo, ext;
                        std::string ctx = "the RDom of " + s.name;
                        if (!const_int(estimated(rv.min, ctx), &lo) ||
                            !const_int(estimated(rv.extent, ctx), &ext)) {
                            fail("The bounds of RVar '" + l.name + "' in " + s.name +
                                 " are not constant after substituting estimates; give the "
                                 "Params they use estimates with set_estimate().");
                        }
                        l.range = {lo, lo + ext - 1};
                        int64_t unused;
                        l.fixed_range = const_int(simplify(rv.min), &unused) &&
                                        const_int(simplify(rv.extent), &unused);
                    }
                } else if (l.func_dim >= 0) {
                    l.range = node.bounds[l.func_dim];
                }
            }
        }
        // Scatter updates (f(g(r)) = ...) write where their LHS says; include that region.
        for (size_t si = 1; si < node.stages.size(); si++) {
            const Stage &s = node.stages[si];
            const Definition &def = f.updates()[si - 1];
            Scope<Interval> scope;
            for (const LoopDim &l : s.loops) {
                scope.push(l.name, Interval(make_const(Int(32), l.range.min),
                                            make_const(Int(32), l.range.max)));
            }
            for (size_t d = 0; d < def.args().size(); d++) {
                if (def.args()[d].as<Variable>()) continue;
                Interval i = bounds_of_expr_in_scope(def.args()[d], scope, value_bounds_);
                int64_t lo, hi;
                if (!i.is_bounded() || !const_bound(i.min, false, s.name, &lo) ||
                    !const_bound(i.max, true, s.name, &hi)) {
                    fail("Cannot bound the region written by " + s.name + " in dimension " +
                         std::to_string(d) + "; clamp its index expression.");
                }
                node.bounds[size_t(positions(f)[d])].include({lo, hi});
            }
        }
    }

    /** A constant bound of `e`: its value, or where the simplifier leaves it symbolic (a
     * float64 `floor` of a constant is not folded: random pipeline 109's bin index
     * `clamp(int32(floor_f64(..) ..), 0, 127)`), what its outer min/max (a clamp) promise. */
    bool const_bound(const Expr &e, bool upper, const std::string &context, int64_t *out) {
        return const_int(estimated(e, context), out) || clamp_bound(simplify(e), upper, out);
    }
    static bool clamp_bound(const Expr &e, bool upper, int64_t *out) {
        if (const int64_t *c = as_const_int(e)) {
            *out = *c;
            return true;
        }
        if (const Add *add = e.as<Add>()) {
            int64_t x, c;
            if (!clamp_bound(add->a, upper, &x) || !const_int(add->b, &c)) return false;
            *out = x + c;
            return true;
        }
        const Min *mn = e.as<Min>();
        const Max *mx = e.as<Max>();
        if (!mn && !mx) return false;
        const Expr &a = mn ? mn->a : mx->a, &b = mn ? mn->b : mx->b;
        int64_t x, y;
        const bool ka = clamp_bound(a, upper, &x), kb = clamp_bound(b, upper, &y);
        // min(a, b) <= either's upper bound; max(a, b) >= either's lower bound. The other way
        // round both are needed.
        if (upper == bool(mn)) {
            if (!ka && !kb) return false;
            *out = ka && kb ? (upper ? std::min(x, y) : std::max(x, y)) : (ka ? x : y);
            return true;
        }
        if (!ka || !kb) return false;
        *out = upper ? std::max(x, y) : std::min(x, y);
        return true;
    }

    Expr estimated(const Expr &e, const std::string &context) {
        std::string missing;
        Expr r = substitute_estimates(e, [&](const std::string &m) {
            if (missing.empty()) missing = m;
        });
        if (!missing.empty()) fail("While bounding " + context + ": " + missing + ".");
        return simplify(r);
    }

    int input_id(const RawCall &call) {
        auto it = input_ids_.find(call.name);
        if (it != input_ids_.end()) return it->second;
        InputNode in;
        in.id = int(dag_.inputs.size());
        in.name = call.name;
        in.type = type_class(call.type);
        in.dims = int(call.args.size());
        in.bounds.assign(in.dims, Interval64());
        input_ids_[call.name] = in.id;
        dag_.inputs.push_back(in);
        return in.id;
    }

    void analyse_stage(int func_id, int stage_index) {
        FuncNode &node = dag_.funcs[func_id];
        const Function &f = env_.at(node.name);
        Stage &s = node.stages[stage_index];
        const Definition &def = stage_index == 0 ? f.definition() : f.updates()[stage_index - 1];
        std::vector<Expr> exprs = definition_exprs(def, stage_index > 0);
        for (Expr &e : exprs)
            e = inline_index_lets(e);

        for (const Expr &e : exprs) {
            count_ops(e, &s.ops);
            s.scalarized_calls += count_scalarized_calls(e);
            const F64OfNarrowUint f64 = find_f64_of_narrow_uint(e);
            s.no_vectorize |= f64.product;
            // (A Func holding such a cast is never inlined: its consumer's product would be.)
            if (f64.cast) node.can_inline = false;
            for (LoopDim &l : s.loops)
                l.parity_mod = std::max(l.parity_mod, small_modulus(e, l.name));
        }
        if (stage_index > 0 && def.predicate().defined() && !is_const_one(def.predicate()))
            for (const LoopDim &l : s.loops)
                if (!l.is_rvar && l.func_dim == 0 && expr_uses_var(def.predicate(), l.name))
                    s.masked_lanes = true;
        std::vector<RawCall> calls;
        for (const Expr &e : exprs) {
            std::vector<RawCall> c = collect_calls(e);
            calls.insert(calls.end(), c.begin(), c.end());
        }
        // Arguments in the producer's storage order: the DAG's dimensions are storage's.
        for (RawCall &c : calls)
            if (!c.is_input) c.args = in_storage_order(c.args, positions(env_.at(c.name)));
        add_loads(node, s, calls);
        mark_parallel_safe(node, s, stage_index, calls);
        add_footprint_edges(func_id, stage_index, exprs, calls);
    }

    /** The stage's loads with their Jacobians; identical ones counted once. */
    void add_loads(const FuncNode &node, Stage &s, const std::vector<RawCall> &calls) {
        for (const RawCall &c : calls) {
            if (c.is_input) record_input_param(c);
            Load ld;
            ld.kind = c.is_input ? ProducerKind::Input : ProducerKind::Func;
            ld.producer = c.is_input ? input_id(c) : dag_.find_func(c.name);
            ld.self = !c.is_input && c.name == node.name;
            ld.type = type_class(c.type);
            ld.producer_dims = int(c.args.size());
            ld.loop_dims = int(s.loops.size());
            bool clamped = false;
            for (const Expr &a : c.args) {
                if (contains_call(a)) ld.data_dependent = true;
                for (const LoopDim &l : s.loops)
                    ld.jacobian.push_back(jacobian_entry(a, l.name));
                ld.clamps.push_back(count_index_clamps(a));
                ld.likely.push_back(has_likely(a));
                clamped |= ld.clamps.back() > 0;
            }
            if (!clamped) {
                ld.clamps.clear();
                ld.likely.clear();
            }
            bool merged = false;
            for (Load &other : s.loads) {
                if (other.kind == ld.kind && other.producer == ld.producer &&
                    other.jacobian == ld.jacobian && other.data_dependent == ld.data_dependent &&
                    other.clamps == ld.clamps && other.likely == ld.likely) {
                    other.count++;
                    merged = true;
                    break;
                }
            }
            if (!merged) s.loads.push_back(ld);
        }
    }

    /** Pure vars of updates are parallel-safe when every self-read uses them in place. A pure
     * loop is one whose var stands naked in its own place on the left-hand side (func_dim), so
     * two of its iterations write different cells whatever the other coordinates are: a var
     * that also feeds another coordinate (bilateral_grid's `grid(x, y, bin(x, y), c) += ...`)
     * is still safe, as Halide itself treats it (a pure var of the update). */
    static void mark_parallel_safe(const FuncNode &node, Stage &s, int stage_index,
                                   const std::vector<RawCall> &calls) {
        for (LoopDim &l : s.loops) {
            if (l.is_rvar || l.func_dim < 0) continue;
            l.parallel_safe = true;
            if (stage_index == 0) continue;
            for (const RawCall &c : calls) {
                if (c.is_input || c.name != node.name) continue;
                const Variable *v = c.args[l.func_dim].as<Variable>();
                if (!v || v->name != l.name) l.parallel_safe = false;
            }
        }
    }

    /** Footprints: symbolic in the loop bounds, one edge per producer; each producer's
     * required region grows by what this stage reads of it over its whole loop box. */
    void add_footprint_edges(int func_id, int stage_index, const std::vector<Expr> &exprs,
                             const std::vector<RawCall> &calls) {
        const FuncNode &node = dag_.funcs[func_id];
        const Stage &s = node.stages[stage_index];
        Scope<Interval> scope;
        std::vector<std::string> mins, maxs;
        for (const LoopDim &l : s.loops) {
            mins.push_back(min_name(l.name));
            maxs.push_back(max_name(l.name));
            scope.push(l.name, Interval(Variable::make(Int(32), mins.back()),
                                        Variable::make(Int(32), maxs.back())));
        }
        Scope<Interval> full_scope;
        for (const LoopDim &l : s.loops) {
            full_scope.push(l.name, Interval(make_const(Int(32), l.range.min),
                                             make_const(Int(32), l.range.max)));
        }
        std::map<std::string, Box> boxes, full_boxes;
        for (const Expr &e : exprs) {
            for (auto &kv : boxes_required(e, scope, value_bounds_))
                merge_boxes(boxes[kv.first], kv.second);
            for (auto &kv : boxes_required(e, full_scope, value_bounds_))
                merge_boxes(full_boxes[kv.first], kv.second);
        }
        Box64 full_loops = s.full_loop_box();
        for (auto &kv : boxes) {
            const std::string &name = kv.first;
            if (name == node.name) continue; // an update reading its own Func
            Edge edge;
            edge.consumer_func = func_id;
            edge.consumer_stage = stage_index;
            int fid = dag_.find_func(name);
            if (fid >= 0) {
                edge.kind = ProducerKind::Func;
                edge.producer = fid;
            } else if (input_ids_.count(name)) {
                edge.kind = ProducerKind::Input;
                edge.producer = input_ids_.at(name);
            } else {
                continue; // not a buffer we track (e.g. a Buffer<> constant is still an input)
            }
            for (const RawCall &c : calls)
                edge.calls += c.name == name;
            const Box &box = kv.second;
            const Box &full = full_boxes[name];
            for (size_t d = 0; d < box.size(); d++) {
                BoundExpr lo, hi;
                bool ok = box[d].is_bounded();
                if (ok) {
                    Expr mn =
                        estimated(box[d].min, "the region of '" + name + "' read by " + s.name);
                    Expr mx =
                        estimated(box[d].max, "the region of '" + name + "' read by " + s.name);
                    ok = to_bound_expr(mn, mins, maxs, &lo) && to_bound_expr(mx, mins, maxs, &hi);
                }
                if (!ok) {
                    // Not expressible per tile: fall back to the whole-stage region.
                    int64_t a, b;
                    if (d < full.size() && full[d].is_bounded() &&
                        const_int(estimated(full[d].min, s.name), &a) &&
                        const_int(estimated(full[d].max, s.name), &b)) {
                        lo = BoundExpr::constant(a);
                        hi = BoundExpr::constant(b);
                    } else if (edge.kind == ProducerKind::Input &&
                               input_estimate(name, int(d), &a, &b)) {
                        lo = BoundExpr::constant(a);
                        hi = BoundExpr::constant(b);
                    } else {
                        fail("The region of '" + name + "' read by " + s.name +
                             " is unbounded in dimension " + std::to_string(d) +
                             (edge.kind == ProducerKind::Input
                                  ? "; give the input estimates with set_estimates(), or clamp "
                                    "the index."
                                  : "; clamp the index expression."));
                    }
                }
                edge.min.push_back(lo);
                edge.max.push_back(hi);
            }
            Box64 region;
            edge.required(full_loops, &region);
            Box64 &acc = edge.kind == ProducerKind::Func ? required_[edge.producer]
                                                         : dag_.inputs[edge.producer].bounds;
            if (acc.size() < region.size()) acc.resize(region.size());
            for (size_t d = 0; d < region.size(); d++)
                acc[d].include(region[d]);
            dag_.edges.push_back(std::move(edge));
        }
    }

    void record_input_param(const RawCall &c) {
        if (input_params_.count(c.name)) return;
        input_params_[c.name] = c.param;
    }

    bool input_estimate(const std::string &name, int dim, int64_t *lo, int64_t *hi) {
        auto it = input_params_.find(name);
        if (it == input_params_.end() || !it->second.defined()) return false;
        int64_t mn, ext;
        Expr emn = it->second.min_constraint_estimate(dim);
        Expr eext = it->second.extent_constraint_estimate(dim);
        if (!emn.defined() || !eext.defined() || !const_int(emn, &mn) || !const_int(eext, &ext))
            return false;
        *lo = mn;
        *hi = mn + ext - 1;
        return true;
    }

    void finish_input(InputNode &in) {
        in.buffer.assign(in.bounds.size(), Interval64());
        for (size_t d = 0; d < in.bounds.size(); d++) {
            if (in.bounds[d].empty()) in.bounds[d] = {0, 0};
            int64_t lo, hi;
            if (input_estimate(in.name, int(d), &lo, &hi))
                in.buffer[d] = {lo, hi};
            else
                in.buffer[d] = in.bounds[d];
        }
    }
};

} // namespace

PipelineDag build_pipeline_dag(const std::vector<Function> &outputs, const Target &target,
                               MachineInfo machine) {
    // First in the arguments' order, which is what the storage rule reads (so a second call on
    // the same Funcs decides the same); a Func its consumers read across rows is then stored the
    // way they read it, and the DAG built again in storage order.
    Builder first(outputs, target, machine, true);
    PipelineDag dag = first.build();
    const std::map<std::string, std::vector<std::string>> orders = transposed_storage(dag);
    if (!orders.empty()) reorder_storage(orders, funcs_by_name(outputs));
    if (!orders.empty() || first.reordered_storage())
        dag = Builder(outputs, target, machine).build();
    annotate_tails(dag);
    return dag;
}

} // namespace sextant
