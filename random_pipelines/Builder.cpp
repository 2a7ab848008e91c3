// Builder: turns a PipelineSpec into Halide Funcs (see Builder.h).
//
// Value discipline (keeps every run free of UB and of inf/NaN): every stage's value lies
// in the canonical range of its type (PipelineSpec.cpp), except accumulating stages
// (clamp_on_access), whose reads are clamped back into it. Arithmetic is done in an
// accumulation type (Int32 for integer types, else the float type) whose range covers
// every intermediate: |value| <= 65536, weights <= 4, at most 4096 reduction terms.
// Every read of an input ImageParam is clamped to its estimates (or goes through a
// boundary condition with those bounds), so runs on estimate-sized buffers are in bounds.
#include "random_pipelines/BuilderImpl.h"

#include <algorithm>
#include <cmath>

namespace sextant {
namespace random_pipelines {

Halide::Type halide_type(ElemType t) {
    const ElemTypeInfo &info = elem_type_info(t);
    const halide_type_code_t code[] = {halide_type_uint, halide_type_int, halide_type_float};
    return Halide::Type(code[info.code], info.bits, 1);
}

namespace detail {

Type acc_type(ElemType t) {
    if (t == ElemType::Float64) return Halide::Float(64);
    if (t == ElemType::Float32) return Halide::Float(32);
    return Halide::Int(32);
}

Expr cst(Type t, double v) {
    return Halide::Internal::make_const(t, v);
}

/** Clamps e (any numeric type) to the canonical range of t and casts to t. */
Expr finish(Expr e, ElemType t) {
    double lo, hi;
    canonical_range(t, lo, hi);
    e = Halide::clamp(e, cst(e.type(), lo), cst(e.type(), hi));
    return Halide::cast(halide_type(t), e);
}

/** e / n for a positive constant n (floor division for ints). */
Expr div_const(Expr e, int n) {
    if (e.type().is_float()) return e * cst(e.type(), 1.0 / n);
    return e / n;
}

std::vector<Var> make_vars(size_t n) {
    static const char *names[] = {"x", "y", "z", "w"};
    std::vector<Var> v;
    for (size_t i = 0; i < n; i++)
        v.emplace_back(i < 4 ? names[i] : "v" + std::to_string(i));
    return v;
}

std::vector<Expr> as_exprs(const std::vector<Var> &v) {
    return std::vector<Expr>(v.begin(), v.end());
}

Halide::Region region_of(const std::vector<int> &extents) {
    Halide::Region r;
    for (int e : extents)
        r.emplace_back(0, e);
    return r;
}

std::vector<Func> Builder::build() {
    for (size_t i = 0; i < spec_.stages.size(); i++)
        funcs_.push_back(build_stage(int(i)));
    std::vector<Func> outs;
    for (int o : spec_.outputs)
        outs.push_back(funcs_[size_t(o)]);
    return outs;
}

/** Reads producer p through Func f (funcs_[p] or a wrapper of it) at args; the result
 *  has p's accumulation type and lies in p's canonical range. */
Expr Builder::load_from(int p, const Func &f, const std::vector<Expr> &args) const {
    const StageSpec &s = st(p);
    Type acc = acc_type(s.type);
    double lo, hi;
    canonical_range(s.type, lo, hi);
    Expr e;
    if (s.kind == StageKind::ArgMin) {
        Expr idx = f(args)[0], val = f(args)[1];
        e = Halide::cast(acc, val) + Halide::cast(acc, idx % 16);
        return Halide::clamp(e, cst(acc, lo), cst(acc, hi));
    }
    if (s.kind == StageKind::TuplePair) {
        e = div_const(f(args)[0] + f(args)[1], 2);
        return Halide::clamp(e, cst(acc, lo), cst(acc, hi));
    }
    e = Halide::cast(acc, f(args));
    if (s.kind == StageKind::ConvLayer && s.ints[4]) e = Halide::max(e, cst(acc, 0)); // ReLU
    if (s.clamp_on_access) e = Halide::clamp(e, cst(acc, lo), cst(acc, hi));
    return e;
}

/** Reads input i at args, every coordinate clamped to its estimates. */
Expr Builder::input_clamped(int i, std::vector<Expr> args) const {
    const InputSpec &in = spec_.inputs[size_t(i)];
    for (size_t d = 0; d < args.size(); d++)
        args[d] = Halide::clamp(args[d], 0, in.extents[d] - 1);
    return inputs_[size_t(i)](args);
}

Func Builder::apply_boundary(BoundaryKind b, const Func &src, const std::vector<int> &extents,
                             ElemType t) const {
    Halide::Region r = region_of(extents);
    switch (b) {
    case BoundaryKind::RepeatEdge:
        return Halide::BoundaryConditions::repeat_edge(src, r);
    case BoundaryKind::ConstantExterior: {
        double lo, hi;
        canonical_range(t, lo, hi);
        return Halide::BoundaryConditions::constant_exterior(
            src, cst(halide_type(t), std::max(lo, 0.0)), r);
    }
    case BoundaryKind::MirrorImage:
        return Halide::BoundaryConditions::mirror_image(src, r);
    case BoundaryKind::MirrorInterior:
        return Halide::BoundaryConditions::mirror_interior(src, r);
    case BoundaryKind::RepeatImage:
        return Halide::BoundaryConditions::repeat_image(src, r);
    case BoundaryKind::ClampCoords:
    case BoundaryKind::Count:
        break;
    }
    std::vector<Var> v = make_vars(extents.size());
    std::vector<Expr> args;
    for (size_t d = 0; d < v.size(); d++)
        args.push_back(Halide::clamp(v[d], 0, extents[d] - 1));
    Func f(src.name() + "_clamped");
    f(v) = src(args);
    return f;
}

Func Builder::build_stage(int i) {
    const StageSpec &s = st(i);
    Func f(s.name);
    const std::vector<Var> v = make_vars(s.extents.size());
    const std::vector<Expr> args = as_exprs(v);
    double lo, hi;
    canonical_range(s.type, lo, hi);
    const StageCtx ctx{s, f, v, args, acc_type(s.type), lo, hi, s.ints};
    switch (s.kind) {
    case StageKind::InputBoundary:
        build_input_boundary(ctx);
        break;
    case StageKind::Pointwise:
        build_pointwise(ctx);
        break;
    case StageKind::Cast:
        build_cast(ctx);
        break;
    case StageKind::Select:
        build_select(ctx);
        break;
    case StageKind::Stencil1D:
        build_stencil1d(ctx);
        break;
    case StageKind::Stencil2D:
        build_stencil2d(ctx);
        break;
    case StageKind::Separable2D:
        build_separable2d(ctx);
        break;
    case StageKind::Downsample:
    case StageKind::Upsample:
        build_resample(ctx);
        break;
    case StageKind::Transpose:
        build_transpose(ctx);
        break;
    case StageKind::Broadcast:
        build_broadcast(ctx);
        break;
    case StageKind::Slice:
        build_slice(ctx);
        break;
    case StageKind::ReduceSum:
    case StageKind::ReduceMax:
    case StageKind::ArgMin:
        build_reduction(ctx);
        break;
    case StageKind::TuplePair:
        build_tuple_pair(ctx);
        break;
    case StageKind::Histogram:
        build_histogram(ctx);
        break;
    case StageKind::Scan:
        build_scan(ctx);
        break;
    case StageKind::ConvLayer:
        build_conv_layer(ctx);
        break;
    case StageKind::MatMul:
        build_mat_mul(ctx);
        break;
    case StageKind::Lookup:
        build_lookup(ctx);
        break;
    case StageKind::Boundary:
        build_boundary(ctx);
        break;
    case StageKind::FanIn:
        build_fan_in(ctx);
        break;
    case StageKind::Count:
        break;
    }
    return f;
}

/** A value a quarter of the way up p's canonical range. */
double Builder::where_threshold(int p) const {
    double lo, hi;
    canonical_range(st(p).type, lo, hi);
    return std::floor(lo + (hi - lo) / 4);
}

/** Maps producer p's value at args into a bin index in [0, bins). */
Expr Builder::bin_index(int p, const std::vector<Expr> &args, int bins) const {
    double lo, hi;
    canonical_range(st(p).type, lo, hi);
    Expr val = load(p, args);
    Expr idx;
    if (val.type().is_float()) {
        idx = Halide::cast(Halide::Int(32),
                           (val - cst(val.type(), lo)) * cst(val.type(), bins / (hi - lo + 1)));
    } else {
        idx = ((val - int(lo)) * bins) / int(hi - lo + 1);
    }
    return Halide::clamp(idx, 0, bins - 1);
}

} // namespace detail

std::vector<Halide::Func> build_pipeline_funcs(const PipelineSpec &spec,
                                               const std::vector<Halide::Func> &inputs,
                                               const std::vector<Halide::Expr> &scalars) {
    detail::Builder b(spec, inputs, scalars);
    return b.build();
}

} // namespace random_pipelines
} // namespace sextant
