#include "CodegenQuirks.h"

namespace sextant {

using namespace Halide;
using namespace Halide::Internal;

namespace {

bool is_f64_cast_of_narrow_uint(const Expr &e) {
    const Cast *c = e.as<Cast>();
    if (!c || !c->type.is_float() || c->type.bits() != 64) return false;
    Expr v = c->value;
    while (const Cast *w = v.as<Cast>()) {
        if (!(w->type.is_int() || w->type.is_uint()) || !w->type.can_represent(w->value.type()))
            break;
        v = w->value;
    }
    return v.type().is_uint() && v.type().bits() <= 16;
}

class Finder : public IRVisitor {
public:
    F64OfNarrowUint found;

private:
    using IRVisitor::visit;
    void arithmetic(const Type &t, const Expr &a, const Expr &b) {
        found.product |= t.is_float() && t.bits() == 64 &&
                         (is_f64_cast_of_narrow_uint(a) || is_f64_cast_of_narrow_uint(b));
    }
    void visit(const Mul *op) override {
        arithmetic(op->type, op->a, op->b);
        IRVisitor::visit(op);
    }
    void visit(const Div *op) override {
        arithmetic(op->type, op->a, op->b);
        IRVisitor::visit(op);
    }
    void visit(const Cast *op) override {
        found.cast |= is_f64_cast_of_narrow_uint(Expr(op));
        IRVisitor::visit(op);
    }
};

} // namespace

F64OfNarrowUint find_f64_of_narrow_uint(const Expr &e) {
    Finder f;
    if (e.defined()) e.accept(&f);
    return f.found;
}

bool is_widening_load(const Cast *c) {
    const Type from = c->value.type();
    const Call *load = c->value.as<Call>();
    return load && (load->call_type == Call::Halide || load->call_type == Call::Image) &&
           (c->type.is_int() || c->type.is_uint()) && (from.is_int() || from.is_uint()) &&
           c->type.bits() > from.bits();
}

} // namespace sextant
