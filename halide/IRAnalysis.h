// IRAnalysis: the Halide IR walks DagBuilder needs — op histograms, load collection with
// Jacobians, converting index bounds to BoundExpr, and substituting Param estimates.
// Stateless helpers; no scheduling decisions here.
#pragma once

#include "dag/PipelineDag.h"

#include <Halide.h>

#include <functional>
#include <string>

namespace sextant {

/** The DAG's type class of a Halide scalar type (handles count as 64-bit). */
TypeClass type_class(Halide::Type t);

/** Adds the ops of `e` to `hist`. */
void count_ops(const Halide::Expr &e, OpHistogram *hist);

/** Min/max nodes of a load's index expression when it is address arithmetic (count_ops counts
 * them as no work); 0 otherwise (a data-dependent index's clamps are counted as work). */
int count_index_clamps(const Halide::Expr &arg);

/** True if the index expression holds a `likely` mark (Halide partitions the loops it moves
 * with so that their steady state runs without the clamp). */
bool has_likely(const Halide::Expr &arg);

/** Calls in `e` of the transcendentals Halide 14 lowers to one scalar libm call per vector lane
 * on x86 (Stage::scalarized_calls). */
int count_scalarized_calls(const Halide::Expr &e);

/** `e` with every Let whose variable is used only in the outer parts of boundary selects
 * (likely_branch) in call arguments substituted there: Halide's boundary conditions compute
 * their wrap (`(x - min) % (2 * extent)`) in such a Let, and the wrap belongs to the index's
 * clamp work (count_index_clamps), not to the stage's work per point. */
Halide::Expr inline_index_lets(const Halide::Expr &e);

/** The largest constant of 2 to 4 that `e` takes an expression of `var` modulo (`x % 2`,
 * `(x + 1) % 2`), or 0. */
int small_modulus(const Halide::Expr &e, const std::string &var);

/** A call found in a stage's definition. */
struct RawCall {
    std::string name;
    bool is_input = false; // an input buffer (ImageParam / Buffer) rather than a Func
    std::vector<Halide::Expr> args;
    Halide::Type type;
    int value_index = 0;
    Halide::Internal::Parameter param; // for input buffers given as ImageParam/Input<Buffer>
};
/** All Func and input-buffer calls in `e`, outermost first. */
std::vector<RawCall> collect_calls(const Halide::Expr &e);

/** d(arg)/d(var) as a rational, or non-affine, of the interior form of `arg`: clamps against
 * bounds that do not depend on `var` (boundary conditions) are taken as inactive, as they are
 * in the loop partition Halide runs for the interior. An index whose slope is whole only over a
 * period of iterations (`x % 8`, `x - x % 8`) is non-affine; a rational one (`x / 2`) is not. */
JacobianEntry jacobian_entry(const Halide::Expr &arg, const std::string &var);

/** True if `e` contains any Func or input-buffer call. */
bool contains_call(const Halide::Expr &e);

/** Replaces every Param variable (scalar Params and buffer min/extent symbols) by its
 * estimate. A Param without one is reported through `missing(name, is_buffer_dim)`
 * and replaced by zero. */
Halide::Expr substitute_estimates(const Halide::Expr &e,
                                  const std::function<void(const std::string &)> &missing);

/** Converts an integer index expression, with loop i's min/max given as variables
 * `loop_min_names[i]`/`loop_max_names[i]`, to a BoundExpr. Returns false if `e` uses
 * anything else. */
bool to_bound_expr(const Halide::Expr &e, const std::vector<std::string> &loop_min_names,
                   const std::vector<std::string> &loop_max_names, BoundExpr *out);

/** Evaluates a constant integer expression; false if it is not constant after simplify. */
bool const_int(const Halide::Expr &e, int64_t *out);

} // namespace sextant
