// Halide's bounds expressions as BoundExprs (to_bound_expr, declared in IRAnalysis.h).
#include "IRAnalysis.h"

#include <cmath>
#include <map>

namespace sextant {

using namespace Halide;
using namespace Halide::Internal;

namespace {

/** Float index arithmetic is carried as integers scaled by kScale. A coarse grid's cell read
 * at a fine pixel, `floor((x + 0.5) * to_grid - 0.5)` in float (bench
 * bilateral_guided_upsampling's slice), reaches bounds inference as
 * `int32(floor_f32(float32(x.min) * 0.015625f + -0.492188f))`; read as integers it becomes
 * floor((kScale x * 1024 / kScale - 32256) / kScale), the same cell for every x. Exact for
 * dyadic constants (1/64 above); other constants are rounded to 1 / kScale, close enough for
 * a footprint. Without this the footprint fell back to the whole stage's region: every tile
 * read the whole grid. */
constexpr int64_t kScale = int64_t(1) << 16;
/** Larger float constants are not taken, nor factors over 64: a scaled product then stays
 * inside int64 for coordinates up to 2^24. */
constexpr double kMaxFloatConstant = double(1 << 20);
constexpr int64_t kMaxScaledFactor = int64_t(64) * kScale;

bool is_rounding_call(const Call *c, const char *base) {
    if (c->call_type != Call::PureExtern || c->args.size() != 1) return false;
    const std::string &n = c->name;
    const size_t len = std::char_traits<char>::length(base);
    return n.size() == len + 4 && n.compare(0, len, base) == 0 && n[len] == '_' &&
           n[len + 1] == 'f';
}

class Converter {
public:
    std::map<std::string, BoundExpr> ints;
    std::map<std::string, BoundExpr> floats; // scaled by kScale

    bool integer(const Expr &e, BoundExpr *out) {
        if (const IntImm *i = e.as<IntImm>()) {
            *out = BoundExpr::constant(i->value);
            return true;
        }
        if (const UIntImm *u = e.as<UIntImm>()) {
            *out = BoundExpr::constant(int64_t(u->value));
            return true;
        }
        if (const Variable *v = e.as<Variable>()) return lookup(ints, v->name, out);
        if (const Cast *c = e.as<Cast>()) {
            if (!c->type.is_int_or_uint()) return false;
            if (c->value.type().is_int_or_uint()) return integer(c->value, out);
            // A float index truncated: floor for the non-negative coordinates an index has,
            // exact where the value is already whole (a floor_f32 call's).
            if (!c->value.type().is_float()) return false;
            BoundExpr n;
            if (!scaled(c->value, &n)) return false;
            *out = BoundExpr::binary(BoundExpr::Op::Div, n, BoundExpr::constant(kScale));
            return true;
        }
        if (const Call *c = e.as<Call>()) {
            if ((c->is_intrinsic(Call::likely) || c->is_intrinsic(Call::likely_if_innermost) ||
                 c->is_intrinsic(Call::promise_clamped)) &&
                !c->args.empty()) {
                return integer(c->args[0], out);
            }
            return false;
        }
        if (const Let *l = e.as<Let>())
            return let(l, [&](const Expr &b) { return integer(b, out); });
        return binary(e, out, [&](const Expr &x, BoundExpr *o) { return integer(x, o); });
    }

    bool scaled(const Expr &e, BoundExpr *out) {
        using Op = BoundExpr::Op;
        if (const FloatImm *f = e.as<FloatImm>()) {
            if (!(std::fabs(f->value) <= kMaxFloatConstant)) return false;
            *out = BoundExpr::constant(std::llround(f->value * double(kScale)));
            return true;
        }
        if (const Variable *v = e.as<Variable>()) return lookup(floats, v->name, out);
        if (const Cast *c = e.as<Cast>()) {
            if (!c->type.is_float()) return false;
            if (c->value.type().is_float()) return scaled(c->value, out);
            BoundExpr n;
            if (!integer(c->value, &n)) return false;
            *out = BoundExpr::binary(Op::Mul, n, BoundExpr::constant(kScale));
            return true;
        }
        if (const Call *c = e.as<Call>()) {
            const bool floor = is_rounding_call(c, "floor") || is_rounding_call(c, "trunc");
            const bool ceil = is_rounding_call(c, "ceil");
            const bool round = is_rounding_call(c, "round");
            BoundExpr n;
            if (!(floor || ceil || round) || !scaled(c->args[0], &n)) return false;
            const BoundExpr s = BoundExpr::constant(kScale);
            if (ceil) n = BoundExpr::binary(Op::Add, n, BoundExpr::constant(kScale - 1));
            if (round) n = BoundExpr::binary(Op::Add, n, BoundExpr::constant(kScale / 2));
            *out = BoundExpr::binary(Op::Mul, BoundExpr::binary(Op::Div, n, s), s);
            return true;
        }
        if (const Let *l = e.as<Let>())
            return let(l, [&](const Expr &b) { return scaled(b, out); });
        auto product = [&](const Expr &a, const Expr &b, bool divide) {
            BoundExpr x, y;
            if (!scaled(a, &x) || !scaled(b, &y) || !y.is_constant()) return false;
            const int64_t k = y.code()[0].value;
            if (!divide && std::llabs(k) > kMaxScaledFactor) return false;
            const BoundExpr s = BoundExpr::constant(kScale);
            if (divide) {
                if (k == 0) return false;
                *out = BoundExpr::binary(Op::Div, BoundExpr::binary(Op::Mul, x, s),
                                         BoundExpr::constant(k));
            } else {
                *out = BoundExpr::binary(Op::Div, BoundExpr::binary(Op::Mul, x, y), s);
            }
            return true;
        };
        if (const Mul *m = e.as<Mul>())
            return product(m->a, m->b, false) || product(m->b, m->a, false);
        if (const Div *d = e.as<Div>()) return product(d->a, d->b, true);
        return binary(e, out, [&](const Expr &x, BoundExpr *o) { return scaled(x, o); });
    }

private:
    static bool lookup(const std::map<std::string, BoundExpr> &m, const std::string &name,
                       BoundExpr *out) {
        auto it = m.find(name);
        if (it == m.end()) return false;
        *out = it->second;
        return true;
    }

    template <typename F> bool let(const Let *l, F body) {
        BoundExpr value;
        const bool is_float = l->value.type().is_float();
        if (!(is_float ? scaled(l->value, &value) : integer(l->value, &value))) return false;
        auto &scope = is_float ? floats : ints;
        auto saved = scope;
        scope[l->name] = value;
        const bool ok = body(l->body);
        scope = std::move(saved);
        return ok;
    }

    /** + - min max in either domain; * / % of integers (a scaled product is `scaled`'s). */
    template <typename F> bool binary(const Expr &e, BoundExpr *out, F operand) {
        using Op = BoundExpr::Op;
        auto bin = [&](const Expr &a, const Expr &b, Op op) {
            BoundExpr x, y;
            if (!operand(a, &x) || !operand(b, &y)) return false;
            *out = BoundExpr::binary(op, x, y);
            return true;
        };
        if (const Add *o = e.as<Add>()) return bin(o->a, o->b, Op::Add);
        if (const Sub *o = e.as<Sub>()) return bin(o->a, o->b, Op::Sub);
        if (const Min *o = e.as<Min>()) return bin(o->a, o->b, Op::Min);
        if (const Max *o = e.as<Max>()) return bin(o->a, o->b, Op::Max);
        if (e.type().is_float()) return false;
        if (const Mul *o = e.as<Mul>()) return bin(o->a, o->b, Op::Mul);
        if (const Div *o = e.as<Div>()) return bin(o->a, o->b, Op::Div);
        if (const Mod *o = e.as<Mod>()) return bin(o->a, o->b, Op::Mod);
        return false;
    }
};

} // namespace

bool to_bound_expr(const Expr &e, const std::vector<std::string> &loop_min_names,
                   const std::vector<std::string> &loop_max_names, BoundExpr *out) {
    Converter c;
    for (size_t i = 0; i < loop_min_names.size(); i++) {
        c.ints[loop_min_names[i]] = BoundExpr::loop_min(int(i));
        c.ints[loop_max_names[i]] = BoundExpr::loop_max(int(i));
    }
    return c.integer(e, out);
}

} // namespace sextant
