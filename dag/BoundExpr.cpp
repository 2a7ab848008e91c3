#include "BoundExpr.h"

#include "support/Errors.h"

#include <algorithm>

namespace sextant {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t q = a / b;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) --q;
    return q;
}

int64_t euclid_mod(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t r = a % b;
    if (r < 0) r += (b < 0 ? -b : b);
    return r;
}

} // namespace

BoundExpr BoundExpr::constant(int64_t c) {
    BoundExpr e;
    e.code_.push_back({Op::Const, c});
    e.depth_ = 1;
    return e;
}

BoundExpr BoundExpr::loop_min(int dim) {
    BoundExpr e;
    e.code_.push_back({Op::LoopMin, dim});
    e.depth_ = 1;
    return e;
}

BoundExpr BoundExpr::loop_max(int dim) {
    BoundExpr e;
    e.code_.push_back({Op::LoopMax, dim});
    e.depth_ = 1;
    return e;
}

BoundExpr BoundExpr::binary(Op op, const BoundExpr &a, const BoundExpr &b) {
    // Fold constants so that evaluation stays short.
    if (a.is_constant() && b.is_constant()) {
        int64_t x = a.code_[0].value, y = b.code_[0].value;
        int64_t mins[1] = {0}, maxs[1] = {0};
        BoundExpr tmp;
        tmp.code_ = {{Op::Const, x}, {Op::Const, y}, {op, 0}};
        return constant(tmp.eval(mins, maxs));
    }
    BoundExpr e;
    e.code_.reserve(a.code_.size() + b.code_.size() + 1);
    e.code_.insert(e.code_.end(), a.code_.begin(), a.code_.end());
    e.code_.insert(e.code_.end(), b.code_.begin(), b.code_.end());
    e.code_.push_back({op, 0});
    // a's value waits on the stack while b is evaluated.
    e.depth_ = std::max(a.depth_, 1 + b.depth_);
    SEXTANT_ASSERT(e.depth_ <= kMaxDepth, "a bound expression deeper than eval()'s stack");
    return e;
}

int64_t BoundExpr::eval(const int64_t *mins, const int64_t *maxs) const {
    int64_t stack[kMaxDepth];
    int sp = 0;
    for (const Instr &in : code_) {
        switch (in.op) {
        case Op::Const:
            stack[sp++] = in.value;
            break;
        case Op::LoopMin:
            stack[sp++] = mins[in.value];
            break;
        case Op::LoopMax:
            stack[sp++] = maxs[in.value];
            break;
        default: {
            int64_t b = stack[--sp];
            int64_t a = stack[sp - 1];
            int64_t r = 0;
            switch (in.op) {
            case Op::Add:
                r = a + b;
                break;
            case Op::Sub:
                r = a - b;
                break;
            case Op::Mul:
                r = a * b;
                break;
            case Op::Div:
                r = floor_div(a, b);
                break;
            case Op::Mod:
                r = euclid_mod(a, b);
                break;
            case Op::Min:
                r = std::min(a, b);
                break;
            case Op::Max:
                r = std::max(a, b);
                break;
            default:
                break;
            }
            stack[sp - 1] = r;
        }
        }
    }
    return sp == 1 ? stack[0] : 0;
}

bool BoundExpr::as_linear(int *dim, bool *uses_max, int64_t *coeff, int64_t *offset) const {
    // Recognise: L, c, L c +, L c -, c L +, L c *, c L *, L c * c +, ...
    // Evaluate symbolically with (coeff, offset, var) triples.
    struct Lin {
        int64_t coeff = 0, offset = 0;
        int var = -1; // encoded 2*dim + is_max
        bool ok = true;
    };
    Lin stack[64];
    int sp = 0;
    for (const Instr &in : code_) {
        if (sp >= 63) return false;
        switch (in.op) {
        case Op::Const:
            stack[sp++] = {0, in.value, -1, true};
            break;
        case Op::LoopMin:
            stack[sp++] = {1, 0, int(2 * in.value), true};
            break;
        case Op::LoopMax:
            stack[sp++] = {1, 0, int(2 * in.value + 1), true};
            break;
        default: {
            Lin b = stack[--sp];
            Lin a = stack[sp - 1];
            Lin r;
            if (in.op == Op::Add || in.op == Op::Sub) {
                int64_t s = in.op == Op::Add ? 1 : -1;
                if (a.var >= 0 && b.var >= 0 && a.var != b.var) return false;
                r.var = a.var >= 0 ? a.var : b.var;
                r.coeff = a.coeff + s * b.coeff;
                r.offset = a.offset + s * b.offset;
            } else if (in.op == Op::Mul) {
                if (a.var >= 0 && b.var >= 0) return false;
                const Lin &v = a.var >= 0 ? a : b;
                const Lin &c = a.var >= 0 ? b : a;
                r.var = v.var;
                r.coeff = v.coeff * c.offset;
                r.offset = v.offset * c.offset;
            } else {
                return false;
            }
            stack[sp - 1] = r;
        }
        }
    }
    if (sp != 1 || stack[0].var < 0) return false;
    *dim = stack[0].var / 2;
    *uses_max = stack[0].var % 2;
    *coeff = stack[0].coeff;
    *offset = stack[0].offset;
    return true;
}

std::string BoundExpr::to_string() const {
    std::vector<std::string> stack;
    for (const Instr &in : code_) {
        switch (in.op) {
        case Op::Const:
            stack.push_back(std::to_string(in.value));
            break;
        case Op::LoopMin:
            stack.push_back("min" + std::to_string(in.value));
            break;
        case Op::LoopMax:
            stack.push_back("max" + std::to_string(in.value));
            break;
        default: {
            std::string b = stack.back();
            stack.pop_back();
            std::string a = stack.back();
            stack.pop_back();
            const char *name = "?";
            switch (in.op) {
            case Op::Add:
                name = " + ";
                break;
            case Op::Sub:
                name = " - ";
                break;
            case Op::Mul:
                name = "*";
                break;
            case Op::Div:
                name = "/";
                break;
            case Op::Mod:
                name = "%";
                break;
            default:
                break;
            }
            if (in.op == Op::Min || in.op == Op::Max) {
                stack.push_back(std::string(in.op == Op::Min ? "min(" : "max(") + a + ", " + b +
                                ")");
            } else {
                stack.push_back("(" + a + name + b + ")");
            }
        }
        }
    }
    return stack.empty() ? std::string("<empty>") : stack.back();
}

} // namespace sextant
