// BuilderImpl: the Builder class behind build_pipeline_funcs (see Builder.h), shared by its
// source files, and the expression helpers they use. Internal to random_pipelines; not part of
// the public API.
//   Builder.cpp              the value discipline, the helpers, build_pipeline_funcs, and the
//                            Builder's core: loads, boundary conditions, build_stage's dispatch
//   BuilderStages.cpp        the pure stage kinds
//   BuilderUpdateStages.cpp  stage kinds with update definitions (reductions, tuple pair,
//                            histogram, scan, conv layer, matmul)
#pragma once

#include "random_pipelines/Builder.h"

#include <Halide.h>

#include <vector>

namespace sextant {
namespace random_pipelines {
namespace detail {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;
using Halide::Tuple;
using Halide::Type;
using Halide::Var;

/** The type a stage of element type t computes in: Int32 for integer types, else t. */
Type acc_type(ElemType t);
/** v as a constant of type t. */
Expr cst(Type t, double v);
/** Clamps e (any numeric type) to the canonical range of t and casts to t. */
Expr finish(Expr e, ElemType t);
/** e / n for a positive constant n (floor division for ints). */
Expr div_const(Expr e, int n);
/** n pure Vars: x, y, z, w, then v4, v5, ... */
std::vector<Var> make_vars(size_t n);
std::vector<Expr> as_exprs(const std::vector<Var> &v);
/** [0, e) in each dimension. */
Halide::Region region_of(const std::vector<int> &extents);

class Builder {
public:
    Builder(const PipelineSpec &spec, const std::vector<Func> &inputs,
            const std::vector<Expr> &scalars)
        : spec_(spec), inputs_(inputs), scalars_(scalars) {}

    /** Every stage in order; the outputs' Funcs. */
    std::vector<Func> build();

private:
    const PipelineSpec &spec_;
    const std::vector<Func> &inputs_;
    const std::vector<Expr> &scalars_;
    std::vector<Func> funcs_;

    const StageSpec &st(int i) const { return spec_.stages[size_t(i)]; }

    /** Reads producer p through Func f (funcs_[p] or a wrapper of it) at args; the result
     *  has p's accumulation type and lies in p's canonical range. */
    Expr load_from(int p, const Func &f, const std::vector<Expr> &args) const;

    Expr load(int p, const std::vector<Expr> &args) const {
        return load_from(p, funcs_[size_t(p)], args);
    }

    /** Producer p read at args, converted to type t. */
    Expr load_as(int p, const std::vector<Expr> &args, Type t) const {
        return Halide::cast(t, load(p, args));
    }

    Expr scalar_as(int i, Type t) const { return Halide::cast(t, scalars_[size_t(st_scalar(i))]); }
    int st_scalar(int i) const { return i; }

    /** Reads input i at args, every coordinate clamped to its estimates. */
    Expr input_clamped(int i, std::vector<Expr> args) const;

    /** src under boundary condition b over [0, extents) (ClampCoords: clamped coordinates). */
    Func apply_boundary(BoundaryKind b, const Func &src, const std::vector<int> &extents,
                        ElemType t) const;

    /** What building any stage needs: its spec and Func, the pure Vars (and as Exprs), the
     * type values are computed in, and the canonical range of its element type. */
    struct StageCtx {
        const StageSpec &s;
        Func &f;
        const std::vector<Var> &v;
        const std::vector<Expr> &args;
        Type acc;
        double lo, hi;
        const std::vector<int> &I; ///< s.ints
    };

    /** Stage i's Func, built by the builder of its kind. */
    Func build_stage(int i);

    // The pure stage kinds (BuilderStages.cpp).
    /** InputBoundary. */
    void build_input_boundary(const StageCtx &ctx);
    /** Pointwise. */
    void build_pointwise(const StageCtx &ctx);
    /** Cast. */
    void build_cast(const StageCtx &ctx);
    /** Select. */
    void build_select(const StageCtx &ctx);
    /** Stencil1D. */
    void build_stencil1d(const StageCtx &ctx);
    /** Stencil2D. */
    void build_stencil2d(const StageCtx &ctx);
    /** Separable2D. */
    void build_separable2d(const StageCtx &ctx);
    /** Downsample / Upsample. */
    void build_resample(const StageCtx &ctx);
    /** Transpose. */
    void build_transpose(const StageCtx &ctx);
    /** Broadcast. */
    void build_broadcast(const StageCtx &ctx);
    /** Slice. */
    void build_slice(const StageCtx &ctx);
    /** Lookup. */
    void build_lookup(const StageCtx &ctx);
    /** Boundary. */
    void build_boundary(const StageCtx &ctx);
    /** FanIn. */
    void build_fan_in(const StageCtx &ctx);

    // The stage kinds with update definitions (BuilderUpdateStages.cpp).
    /** ReduceSum / ReduceMax / ArgMin. */
    void build_reduction(const StageCtx &ctx);
    /** TuplePair. */
    void build_tuple_pair(const StageCtx &ctx);
    /** Histogram. */
    void build_histogram(const StageCtx &ctx);
    /** Scan. */
    void build_scan(const StageCtx &ctx);
    /** ConvLayer. */
    void build_conv_layer(const StageCtx &ctx);
    /** MatMul. */
    void build_mat_mul(const StageCtx &ctx);

    /** A value a quarter of the way up p's canonical range. */
    double where_threshold(int p) const;
    /** Maps producer p's value at args into a bin index in [0, bins). */
    Expr bin_index(int p, const std::vector<Expr> &args, int bins) const;
};

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
