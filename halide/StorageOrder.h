// Storage orders: which dimension of a Func is stored innermost. Sextant vectorizes a Func along
// its innermost storage dimension, which Halide takes from the order of the Func's arguments
// unless the schedule reorders it. An inline reduction's Func gets its arguments in the order its
// free variables appear in the expression (`dct(x, y) = sum(basis(y % 8, r) * rows(x, ...))`
// makes `sum$1(y, x)`), so it can store innermost a dimension its consumer reads across rows.
#pragma once

#include "dag/PipelineDag.h"

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace sextant {

/** Whether `name` is one Halide gives an inline reduction's Func (`sum`, `maximum$2`, ...). */
bool is_inline_reduction(const std::string &name);

/** Per Func to reorder: its pure vars in the new storage order, innermost first. An inline
 * reduction's Func (not an output, two or more dimensions) qualifies when every read of it by
 * another stage moves one and the same dimension other than its innermost at unit slope along
 * that stage's own innermost storage dimension, and no other dimension along it: the consumers
 * then read it across rows. That dimension becomes its innermost. A Func the user named keeps
 * the order the user wrote its arguments in: that is the user's choice of layout (and every
 * ScheduleText stored for it stays valid); an inline reduction's order is Halide's accident. */
std::map<std::string, std::vector<std::string>> transposed_storage(const PipelineDag &dag);

/** Applies `orders` to `funcs` (funcs_by_name): reorder_storage, and each stage's pure loops put in
 * the same order (Halide's default loop order follows the arguments, not the storage). */
void reorder_storage(const std::map<std::string, std::vector<std::string>> &orders,
                     const std::map<std::string, Halide::Func> &funcs);

/** For each argument of `f` (a Func, not an output), its storage position: the identity unless
 * its schedule reorders the storage. */
std::vector<int> storage_positions(const Halide::Internal::Function &f);

/** A call's arguments put in its callee's storage order (`positions` per argument). */
std::vector<Halide::Expr> in_storage_order(const std::vector<Halide::Expr> &args,
                                           const std::vector<int> &positions);

} // namespace sextant
