// BoundExpr: a small integer expression over a consumer stage's loop bounds, stored as a
// postfix program. It answers "for this box of consumer loop iterations, which coordinate of
// the producer is the first (or last) one needed?" without Halide. It is built once per
// edge by the Halide adapter and evaluated many times by the search.
//
// Not a general expression language: only the integer operations Halide's bounds inference
// produces for index expressions (+ - * floor-/ floor-% min max and constants).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sextant {

class BoundExpr {
public:
    enum class Op : uint8_t { Const, LoopMin, LoopMax, Add, Sub, Mul, Div, Mod, Min, Max };

    struct Instr {
        Op op;
        int64_t value; // Const: the constant; LoopMin/LoopMax: the consumer loop dim index
    };

    BoundExpr() = default;
    static BoundExpr constant(int64_t c);
    static BoundExpr loop_min(int dim);
    static BoundExpr loop_max(int dim);
    static BoundExpr binary(Op op, const BoundExpr &a, const BoundExpr &b);

    /** Evaluates with loop dim i spanning [mins[i], maxs[i]]. Division and modulo are
     * Halide's (Euclidean: rounds towards negative infinity, x/0 == 0). */
    int64_t eval(const int64_t *mins, const int64_t *maxs) const;

    bool empty() const { return code_.empty(); }
    bool is_constant() const { return code_.size() == 1 && code_[0].op == Op::Const; }
    /** If this is `c0 + coeff * loop_{min|max}(dim)`, returns true and fills the parts. */
    bool as_linear(int *dim, bool *uses_max, int64_t *coeff, int64_t *offset) const;
    const std::vector<Instr> &code() const { return code_; }
    std::string to_string() const;

    /** Deepest operand stack eval() can use (its stack is fixed: kMaxDepth). */
    static constexpr int kMaxDepth = 64;

private:
    std::vector<Instr> code_;
    int depth_ = 0; // the operand stack eval() needs
};

} // namespace sextant
