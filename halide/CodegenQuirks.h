// CodegenQuirks: what Halide 14 and LLVM do with some expressions that their IR does not show:
// products Halide 14 cannot compile in some schedules, found in a Func's definition so that the
// search never offers those schedules (docs/SEARCH.md, "A product Halide 14 cannot
// vectorize"), and conversions x86 folds into a load.
#pragma once

#include <Halide.h>

namespace sextant {

/** Float64 arithmetic on a uint8 or uint16 value cast to float64 (also through widening
 * integer casts, which the simplifier folds: f64(i32(u8)) is f64(u8) by codegen). */
struct F64OfNarrowUint {
    /** Such a cast is a factor of a float64 product or quotient (`f64(u8) * 0.5`; lowering
     * makes `x / 2.0` a product). Vectorized, Halide 14's find_intrinsics narrows it twice into
     * a widening_mul of a uint16 and a float16, which codegen rejects ("Internal Error at
     * CodeGen_LLVM.cpp:1344"); the scalar form compiles. */
    bool product = false;
    /** Such a cast anywhere: inlined into a consumer that multiplies it, it becomes such a
     * product there. */
    bool cast = false;
};

F64OfNarrowUint find_f64_of_narrow_uint(const Halide::Expr &e);

/** An integer cast to a wider integer type of a value loaded from a Func or an input
 * (`u32(in(x, y))`): x86 loads and widens in one instruction (vpmovzx / vpmovsx with a memory
 * operand), so the cast costs no arithmetic of its own (docs/COSTMODEL.md, "Widening loads"). */
bool is_widening_load(const Halide::Internal::Cast *c);

} // namespace sextant
