#include "IRAnalysis.h"

#include "CodegenQuirks.h"

#include <cmath>
#include <map>
#include <optional>

namespace sextant {

using namespace Halide;
using namespace Halide::Internal;

TypeClass type_class(Type t) {
    if (t.is_handle()) return TypeClass::U64;
    return type_class_of(t.is_float(), t.is_uint(), t.is_bool(), t.bits());
}

namespace {

/** Whether `op` calls one of Halide's math functions `names` (sin_f32, exp_f64, ...). */
template <size_t N> bool is_math_call(const Call *op, const char *const (&names)[N]) {
    if (op->call_type != Call::PureExtern && op->call_type != Call::Extern) return false;
    const size_t us = op->name.rfind('_');
    const std::string base = us == std::string::npos ? op->name : op->name.substr(0, us);
    for (const char *k : names)
        if (base == k) return true;
    return false;
}

/** Halide's math library calls that expand to a polynomial or a libm call (sin_f32, exp_f64,
 * pow_f32, ...); sqrt, floor, abs and the like are single instructions and stay Math. */
bool is_transcendental(const Call *op) {
    static const char *const kNames[] = {"sin",   "cos",  "tan",  "asin", "acos",  "atan",
                                         "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
                                         "atanh", "exp",  "log",  "pow",  "erf"};
    return is_math_call(op, kNames);
}

/** The transcendentals Halide 14 lowers to one scalar libm call per vector lane on x86. Checked
 * on `-e assembly` of a 16-lane vectorized Func per function (session 26): these became 32
 * calls of sinf, cosf, ... (two loops of 16 lanes); exp, log, pow and erf stayed vector code. */
bool is_scalarized_transcendental(const Call *op) {
    static const char *const kNames[] = {"sin",  "cos",  "tan",  "asin",  "acos",  "atan", "atan2",
                                         "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"};
    return is_math_call(op, kNames);
}

/** The branch of `select(c, a, b)` that holds a `likely` mark when the other does not, else
 * null. Halide's boundary conditions (repeat_image, mirror_image, mirror_interior) index with
 * `select(outside, wrapped, clamp(likely(x), min, max))`: loop partitioning keeps only the
 * likely branch in a loop's steady state, so there the index is that branch. */
const Expr *likely_branch(const Select *s) {
    const bool t = has_likely(s->true_value), f = has_likely(s->false_value);
    if (t == f) return nullptr;
    return t ? &s->true_value : &s->false_value;
}

/** The other branch of a boundary select whose likely branch is `likely`. */
const Expr &outer_branch(const Select *s, const Expr *likely) {
    return likely == &s->true_value ? s->false_value : s->true_value;
}

/** Visits a boundary select's condition and outer branch with `*depth` raised, then its likely
 * branch: how a visitor tells the boundary's work from the interior's. */
void visit_boundary_select(IRVisitor *v, const Select *s, const Expr *likely, int *depth) {
    ++*depth;
    s->condition.accept(v);
    outer_branch(s, likely).accept(v);
    --*depth;
    likely->accept(v);
}

/** True if `e` reads only parameters (scalar Params, buffer extents) and constants: Halide
 * computes it once, outside the loops. A boundary condition's bound is often such an
 * expression with a division (bench chroma_420's `repeat_edge` over a half-resolution Func,
 * `clamp(likely(x), 0, input.extent.0 / 2 - 1)`). */
bool is_loop_invariant(const Expr &e) {
    class Finder : public IRVisitor {
    public:
        bool varies = false;

    private:
        using IRVisitor::visit;
        void visit(const Variable *op) override { varies |= !op->param.defined(); }
        void visit(const Call *) override { varies = true; }
        void visit(const Halide::Internal::Load *) override { varies = true; }
    } finder;
    e.accept(&finder);
    return !finder.varies;
}

/** True if `e` is address arithmetic: adds, subtracts and multiplies (and clamps) of loop
 * variables, parameters and constants, with no load or conversion in it, and any expression
 * of parameters and constants alone (is_loop_invariant); a boundary condition's select counts
 * as its likely branch. */
bool is_address_arithmetic(const Expr &e) {
    if (is_loop_invariant(e)) return true;
    if (const Select *o = e.as<Select>()) {
        const Expr *b = likely_branch(o);
        return b && is_address_arithmetic(*b);
    }
    if (e.as<Variable>() || e.as<IntImm>() || e.as<UIntImm>()) return true;
    if (const Add *o = e.as<Add>())
        return is_address_arithmetic(o->a) && is_address_arithmetic(o->b);
    if (const Sub *o = e.as<Sub>())
        return is_address_arithmetic(o->a) && is_address_arithmetic(o->b);
    if (const Mul *o = e.as<Mul>())
        return is_address_arithmetic(o->a) && is_address_arithmetic(o->b);
    if (const Min *o = e.as<Min>())
        return is_address_arithmetic(o->a) && is_address_arithmetic(o->b);
    if (const Max *o = e.as<Max>())
        return is_address_arithmetic(o->a) && is_address_arithmetic(o->b);
    if (const Call *c = e.as<Call>())
        return (c->is_intrinsic(Call::likely) || c->is_intrinsic(Call::likely_if_innermost)) &&
               c->args.size() == 1 && is_address_arithmetic(c->args[0]);
    return false;
}

/** Operations per point by kind. The adds, subtracts and multiplies of a load's address are
 * counted as Variable nodes (no work: affine in the loop variables, they are strength-reduced
 * into the addressing and their parameter parts hoisted out of the loops), so that the
 * histogram's total still measures the expression's size, which bounds inlining
 * (SearchSpace::inline_fits; counting them as nothing made bench synthetic_200 inline more and
 * its generator run over 120 s in Halide). Clamps of `likely` values (boundary
 * conditions) are: Halide's loop partitioning drops them from a long loop's steady state, but
 * in small tiles they stay (bench nl_means with repeat_edge inlined into a 32x6 tile of `diff`
 * ran 92 ms vs 55 ms with it at root, where counting them free had made the model pick it). */
class OpCounter : public IRVisitor {
public:
    explicit OpCounter(OpHistogram *h) : hist(h) {}

private:
    OpHistogram *hist;
    int in_address = 0;  // inside the address arithmetic of a load
    int in_boundary = 0; // inside a boundary select's condition or outer branch (no work)
    using IRVisitor::visit;

    // In a boundary select's other parts every node still counts, as a Variable: the
    // histogram's total measures the expression's size (see above); their work is the load's
    // index clamps (count_index_clamps), priced where the loop is not partitioned.
    void add(OpKind k, Type t) {
        hist->at(in_boundary ? OpKind::Variable : k, type_class(t.element_of()))++;
    }

    void visit(const IntImm *op) override { add(OpKind::Constant, op->type); }
    void visit(const UIntImm *op) override { add(OpKind::Constant, op->type); }
    void visit(const FloatImm *op) override { add(OpKind::Constant, op->type); }
    void visit(const Cast *op) override {
        add(is_widening_load(op) ? OpKind::Variable : OpKind::Cast, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override {
        add(op->param.defined() ? OpKind::Param : OpKind::Variable, op->type);
    }
    void visit(const Add *op) override {
        add(in_address ? OpKind::Variable : OpKind::Add, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Sub *op) override {
        add(in_address ? OpKind::Variable : OpKind::Sub, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Mul *op) override {
        add(in_address ? OpKind::Variable : OpKind::Mul, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Div *op) override {
        add(in_address ? OpKind::Variable : OpKind::Div, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Mod *op) override {
        add(in_address ? OpKind::Variable : OpKind::Mod, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Min *op) override {
        add(in_address ? OpKind::Variable : OpKind::MinMax, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Max *op) override {
        add(in_address ? OpKind::Variable : OpKind::MinMax, op->type);
        IRVisitor::visit(op);
    }
    void visit(const EQ *op) override {
        add(OpKind::Compare, op->a.type());
        IRVisitor::visit(op);
    }
    void visit(const NE *op) override {
        add(OpKind::Compare, op->a.type());
        IRVisitor::visit(op);
    }
    void visit(const LT *op) override {
        add(OpKind::Compare, op->a.type());
        IRVisitor::visit(op);
    }
    void visit(const LE *op) override {
        add(OpKind::Compare, op->a.type());
        IRVisitor::visit(op);
    }
    void visit(const GT *op) override {
        add(OpKind::Compare, op->a.type());
        IRVisitor::visit(op);
    }
    void visit(const GE *op) override {
        add(OpKind::Compare, op->a.type());
        IRVisitor::visit(op);
    }
    void visit(const And *op) override {
        add(OpKind::Logical, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Or *op) override {
        add(OpKind::Logical, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Not *op) override {
        add(OpKind::Logical, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Select *op) override {
        const Expr *likely = in_address ? likely_branch(op) : nullptr;
        add(likely ? OpKind::Variable : OpKind::Select, op->type);
        if (likely)
            visit_boundary_select(this, op, likely, &in_boundary);
        else
            IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        add(OpKind::Let, op->value.type());
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide || op->call_type == Call::Image) {
            add(op->call_type == Call::Halide ? OpKind::FuncLoad : OpKind::InputLoad, op->type);
            for (const Expr &a : op->args) {
                const bool address = is_address_arithmetic(a);
                in_address += address;
                a.accept(this);
                in_address -= address;
            }
            return;
        } else if (op->is_intrinsic(Call::shift_left) || op->is_intrinsic(Call::shift_right) ||
                   op->is_intrinsic(Call::bitwise_and) || op->is_intrinsic(Call::bitwise_or) ||
                   op->is_intrinsic(Call::bitwise_xor) || op->is_intrinsic(Call::bitwise_not)) {
            add(OpKind::Bitwise, op->type);
        } else if (op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::likely_if_innermost) ||
                   op->is_intrinsic(Call::promise_clamped) ||
                   op->is_intrinsic(Call::unsafe_promise_clamped)) {
            // Annotations: no work of their own.
        } else if (op->is_intrinsic(Call::if_then_else)) {
            add(OpKind::Select, op->type);
        } else if (is_transcendental(op)) {
            add(OpKind::Transcendental, op->type);
        } else {
            add(OpKind::Math, op->type);
        }
        IRVisitor::visit(op);
    }
};

/** The Func and input calls of an expression, their arguments with the enclosing lets' values
 * substituted: a definition's common subexpressions (Halide's inline reductions lift them into
 * lets) would otherwise leave an index such as `x - t` with `t = x % 8` looking affine in `x`, and
 * an index read through a let from another Func looking independent of the data. */
class CallCollector : public IRVisitor {
public:
    std::vector<RawCall> calls;

private:
    using IRVisitor::visit;
    std::map<std::string, Expr> lets_; // in scope, each value with the outer lets substituted
    void visit(const Let *op) override {
        op->value.accept(this);
        Expr value = lets_.empty() ? op->value : substitute(lets_, op->value);
        auto outer = lets_.find(op->name);
        std::optional<Expr> shadowed;
        if (outer != lets_.end()) shadowed = outer->second;
        lets_[op->name] = value;
        op->body.accept(this);
        if (shadowed)
            lets_[op->name] = *shadowed;
        else
            lets_.erase(op->name);
    }
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide || op->call_type == Call::Image) {
            RawCall c;
            c.name = op->name;
            c.is_input = op->call_type == Call::Image;
            c.args = op->args;
            if (!lets_.empty())
                for (Expr &a : c.args)
                    a = substitute(lets_, a);
            c.type = op->type;
            c.value_index = op->value_index;
            c.param = op->param;
            calls.push_back(c);
        }
        IRVisitor::visit(op);
    }
};

class EstimateSubstituter : public IRMutator {
public:
    explicit EstimateSubstituter(const std::function<void(const std::string &)> &m) : missing(m) {}

private:
    const std::function<void(const std::string &)> &missing;
    using IRMutator::visit;

    Expr visit(const Variable *op) override {
        if (!op->param.defined()) return op;
        const Parameter &p = op->param;
        if (!p.is_buffer()) {
            Expr est = p.estimate();
            if (!est.defined()) {
                missing("Param '" + p.name() + "' has no estimate; add " + p.name() +
                        ".set_estimate(value)");
                return make_zero(op->type);
            }
            return cast(op->type, est);
        }
        // Buffer shape symbols look like "<name>.min.<d>" or "<name>.extent.<d>".
        const std::string &n = op->name;
        size_t dot = n.rfind('.');
        if (dot == std::string::npos) return op;
        int dim = std::atoi(n.c_str() + dot + 1);
        std::string rest = n.substr(0, dot);
        bool is_min = rest.size() > 4 && rest.compare(rest.size() - 4, 4, ".min") == 0;
        bool is_extent = rest.size() > 7 && rest.compare(rest.size() - 7, 7, ".extent") == 0;
        if (!is_min && !is_extent) return op;
        Expr est = is_min ? p.min_constraint_estimate(dim) : p.extent_constraint_estimate(dim);
        if (!est.defined()) {
            missing("input '" + p.name() + "' dimension " + std::to_string(dim) +
                    " has no estimate, and the pipeline's bounds depend on its " +
                    (is_min ? "min" : "extent") + "; add " + p.name() + ".set_estimates(...)" +
                    " (or dim(" + std::to_string(dim) + ").set_estimate(min, extent))");
            return make_zero(op->type);
        }
        return cast(op->type, est);
    }
};

} // namespace

void count_ops(const Expr &e, OpHistogram *hist) {
    if (!e.defined()) return;
    OpCounter counter(hist);
    e.accept(&counter);
}

namespace {

/** Work of `e` in simple instructions, as count_ops sees it outside a load. */
double work_of(const Expr &e) {
    OpHistogram h;
    count_ops(e, &h);
    return h.work();
}

/** The clamp work of an address: its min/max, and of a boundary select the select, its
 * condition and its outer branch. */
double clamp_work(const Expr &e) {
    if (is_loop_invariant(e)) return 0; // computed once, outside the loops
    if (const Select *o = e.as<Select>()) {
        const Expr *b = likely_branch(o);
        return 1 + work_of(o->condition) + work_of(outer_branch(o, b)) + clamp_work(*b);
    }
    if (const Min *o = e.as<Min>()) return 1 + clamp_work(o->a) + clamp_work(o->b);
    if (const Max *o = e.as<Max>()) return 1 + clamp_work(o->a) + clamp_work(o->b);
    if (const Add *o = e.as<Add>()) return clamp_work(o->a) + clamp_work(o->b);
    if (const Sub *o = e.as<Sub>()) return clamp_work(o->a) + clamp_work(o->b);
    if (const Mul *o = e.as<Mul>()) return clamp_work(o->a) + clamp_work(o->b);
    if (const Call *c = e.as<Call>())
        return c->args.size() == 1 ? clamp_work(c->args[0]) : 0; // likely(...)
    return 0;
}

} // namespace

int count_index_clamps(const Expr &arg) {
    if (!arg.defined() || !is_address_arithmetic(arg)) return 0;
    return int(std::lround(clamp_work(arg)));
}

bool has_likely(const Expr &arg) {
    class Finder : public IRVisitor {
    public:
        bool found = false;

    private:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            found |= op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::likely_if_innermost);
            IRVisitor::visit(op);
        }
    } finder;
    if (arg.defined()) arg.accept(&finder);
    return finder.found;
}

namespace {

/** Uses of a variable: all of them, and those in a boundary select's condition or outer
 * branch inside the arguments of a Func or input call. */
class UseCounter : public IRVisitor {
public:
    explicit UseCounter(const std::string &name) : name_(name) {}
    int all = 0, in_boundary = 0;

private:
    using IRVisitor::visit;
    const std::string &name_;
    int in_args_ = 0, in_boundary_ = 0;
    void visit(const Variable *op) override {
        if (op->name != name_) return;
        all++;
        in_boundary += in_boundary_ > 0;
    }
    void visit(const Call *op) override {
        const bool load = op->call_type == Call::Halide || op->call_type == Call::Image;
        in_args_ += load;
        IRVisitor::visit(op);
        in_args_ -= load;
    }
    void visit(const Select *op) override {
        const Expr *likely = in_args_ > 0 ? likely_branch(op) : nullptr;
        if (likely)
            visit_boundary_select(this, op, likely, &in_boundary_);
        else
            IRVisitor::visit(op);
    }
};

class IndexLetInliner : public IRMutator {
    using IRMutator::visit;
    Expr visit(const Let *op) override {
        Expr value = mutate(op->value), body = mutate(op->body);
        UseCounter uses(op->name);
        body.accept(&uses);
        if (uses.all > 0 && uses.all == uses.in_boundary) return substitute(op->name, value, body);
        return Let::make(op->name, value, body);
    }
};

} // namespace

Expr inline_index_lets(const Expr &e) {
    return e.defined() ? IndexLetInliner().mutate(e) : e;
}

int small_modulus(const Expr &e, const std::string &var) {
    class Finder : public IRVisitor {
    public:
        explicit Finder(const std::string &var) : var_(var) {}
        int found = 0;

    private:
        using IRVisitor::visit;
        const std::string &var_;
        void visit(const Mod *op) override {
            const IntImm *k = op->b.as<IntImm>();
            if (k && k->value >= 2 && k->value <= 4 && expr_uses_var(op->a, var_))
                found = std::max(found, int(k->value));
            IRVisitor::visit(op);
        }
    } finder(var);
    if (e.defined()) e.accept(&finder);
    return finder.found;
}

int count_scalarized_calls(const Expr &e) {
    class Counter : public IRVisitor {
    public:
        int n = 0;

    private:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            n += is_scalarized_transcendental(op);
            IRVisitor::visit(op);
        }
    } counter;
    if (e.defined()) e.accept(&counter);
    return counter.n;
}

std::vector<RawCall> collect_calls(const Expr &e) {
    CallCollector c;
    if (e.defined()) e.accept(&c);
    return c.calls;
}

bool contains_call(const Expr &e) {
    return !collect_calls(e).empty();
}

namespace {

/** The interior form of an index expression with respect to `var`: a min or max whose other
 * side does not depend on `var` is a clamp (boundary conditions, clamped resampling), and
 * Halide's loop partitioning runs the interior without it, so the interior access is that of
 * the clamped side (`likely` marks are dropped too). */
class ClampStripper : public IRMutator {
public:
    explicit ClampStripper(const std::string &var) : var_(var) {}
    using IRMutator::visit;

private:
    Expr visit(const Min *op) override { return strip(op->a, op->b, op); }
    Expr visit(const Max *op) override { return strip(op->a, op->b, op); }
    Expr visit(const Call *op) override {
        if ((op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::likely_if_innermost)) &&
            op->args.size() == 1)
            return mutate(op->args[0]);
        return IRMutator::visit(op);
    }
    // A boundary condition's select: the interior is its likely branch.
    Expr visit(const Select *op) override {
        if (const Expr *b = likely_branch(op)) return mutate(*b);
        return IRMutator::visit(op);
    }
    template <typename T> Expr strip(const Expr &a, const Expr &b, const T *op) {
        bool ua = expr_uses_var(a, var_), ub = expr_uses_var(b, var_);
        if (ua && !ub) return mutate(a);
        if (ub && !ua) return mutate(b);
        return IRMutator::visit(op);
    }
    std::string var_;
};

} // namespace

JacobianEntry jacobian_entry(const Expr &arg_in, const std::string &var) {
    JacobianEntry j;
    if (!expr_uses_var(arg_in, var)) return j; // 0
    Expr arg = ClampStripper(var).mutate(arg_in);
    if (!expr_uses_var(arg, var)) return j;
    Expr v = Variable::make(arg.type(), var);
    for (int64_t step : {1, 2, 4, 8}) {
        Expr shifted = substitute(var, v + make_const(arg.type(), step), arg);
        Expr diff = simplify(shifted - arg);
        int64_t c;
        if (const_int(diff, &c)) {
            // A whole slope only over a period of several steps (`x % 8`, `x - x % 8`): a
            // staircase or a sawtooth, not affine in neighbouring iterations. Vectorized along
            // `var` it is a gather, however its average slope reads.
            if (step > 1 && c % step == 0) break;
            if (c % step == 0) {
                j.num = c / step;
                j.den = 1;
            } else {
                // Reduce num/den.
                int64_t a = c < 0 ? -c : c, b = step;
                while (b) {
                    int64_t t = a % b;
                    a = b;
                    b = t;
                }
                j.num = c / a;
                j.den = step / a;
            }
            return j;
        }
    }
    j.affine = false;
    return j;
}

Expr substitute_estimates(const Expr &e, const std::function<void(const std::string &)> &missing) {
    EstimateSubstituter s(missing);
    return s.mutate(e);
}

bool const_int(const Expr &e, int64_t *out) {
    Expr s = simplify(e);
    if (const IntImm *i = s.as<IntImm>()) {
        *out = i->value;
        return true;
    }
    if (const UIntImm *u = s.as<UIntImm>()) {
        *out = int64_t(u->value);
        return true;
    }
    return false;
}

} // namespace sextant
