// Builder: turns a PipelineSpec into Halide Funcs (see Builder.h).
//
// Value discipline (keeps every run free of UB and of inf/NaN): every stage's value lies
// in the canonical range of its type (PipelineSpec.cpp), except accumulating stages
// (clamp_on_access), whose reads are clamped back into it. Arithmetic is done in an
// accumulation type (Int32 for integer types, else the float type) whose range covers
// every intermediate: |value| <= 65536, weights <= 4, at most 4096 reduction terms.
// Every read of an input ImageParam is clamped to its estimates (or goes through a
// boundary condition with those bounds), so runs on estimate-sized buffers are in bounds.
#include "random_pipelines/Builder.h"

#include <cmath>

namespace sextant {
namespace random_pipelines {

using Halide::Expr;
using Halide::Func;
using Halide::RDom;
using Halide::Tuple;
using Halide::Type;
using Halide::Var;

Type halide_type(ElemType t) {
    const ElemTypeInfo &info = elem_type_info(t);
    const halide_type_code_t code[] = {halide_type_uint, halide_type_int, halide_type_float};
    return Type(code[info.code], info.bits, 1);
}

namespace {

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

class Builder {
public:
    Builder(const PipelineSpec &spec, const std::vector<Func> &inputs,
            const std::vector<Expr> &scalars)
        : spec_(spec), inputs_(inputs), scalars_(scalars) {}

    std::vector<Func> build() {
        for (size_t i = 0; i < spec_.stages.size(); i++)
            funcs_.push_back(build_stage(int(i)));
        std::vector<Func> outs;
        for (int o : spec_.outputs)
            outs.push_back(funcs_[size_t(o)]);
        return outs;
    }

private:
    const PipelineSpec &spec_;
    const std::vector<Func> &inputs_;
    const std::vector<Expr> &scalars_;
    std::vector<Func> funcs_;

    const StageSpec &st(int i) const { return spec_.stages[size_t(i)]; }

    /** Reads producer p through Func f (funcs_[p] or a wrapper of it) at args; the result
     *  has p's accumulation type and lies in p's canonical range. */
    Expr load_from(int p, const Func &f, const std::vector<Expr> &args) const {
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
    Expr input_clamped(int i, std::vector<Expr> args) const {
        const InputSpec &in = spec_.inputs[size_t(i)];
        for (size_t d = 0; d < args.size(); d++)
            args[d] = Halide::clamp(args[d], 0, in.extents[d] - 1);
        return inputs_[size_t(i)](args);
    }

    Func apply_boundary(BoundaryKind b, const Func &src, const std::vector<int> &extents,
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

    Func build_stage(int i) {
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

    /** InputBoundary. */
    void build_input_boundary(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int in = s.inputs[0];
        const std::vector<int> &ext = spec_.inputs[size_t(in)].extents;
        // Guard: Halide 14's bounds inference can over-estimate the input region read
        // through mirror/repeat conditions after loop partitioning (seed 8 read
        // [0, 640] of a 640-wide input); clamping first pins it to the estimates.
        Func src(s.name + "_guard");
        std::vector<Var> gv = make_vars(ext.size());
        std::vector<Expr> ga;
        for (size_t d = 0; d < gv.size(); d++)
            ga.push_back(Halide::clamp(gv[d], 0, ext[d] - 1));
        src(gv) = inputs_[size_t(in)](ga);
        Func bc = apply_boundary(BoundaryKind(I[0]), src, spec_.inputs[size_t(in)].extents, s.type);
        f(v) = bc(args);
    }

    /** Pointwise. */
    void build_pointwise(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        Expr a = load_as(s.producers[0], args, acc);
        Expr e;
        if (s.producers.size() == 2) {
            Expr b = load_as(s.producers[1], args, acc);
            switch (PointwiseOp(I[0])) {
            case PointwiseOp::Add:
                e = a + b;
                break;
            case PointwiseOp::Subtract:
                e = a - b;
                break;
            case PointwiseOp::Multiply:
                e = acc.is_float() ? a * b * cst(acc, 1.0 / 256)
                                   : Halide::clamp(a, -255, 255) * Halide::clamp(b, -255, 255);
                break;
            case PointwiseOp::AbsDifference:
                e = Halide::cast(acc, Halide::abs(a - b));
                break; // abs of int32 is uint32
            case PointwiseOp::Average:
                e = div_const(a + b, 2);
                break;
            default: // SelectLarger
                e = Halide::select(a > b, a - b, b);
                break;
            }
        } else {
            switch (PointwiseOp(I[0])) {
            case PointwiseOp::Affine:
                e = a * scalar_as(s.scalars[0], acc) + scalar_as(s.scalars[1], acc);
                break;
            case PointwiseOp::Square:
                e = acc.is_float()
                        ? a * a * cst(acc, 1.0 / 256)
                        : (Halide::clamp(a, -255, 255) * Halide::clamp(a, -255, 255)) / 4;
                break;
            case PointwiseOp::Wavy:
                e = acc.is_float() ? Halide::sqrt(Halide::abs(a)) * cst(acc, 16) +
                                         Halide::sin(a * cst(acc, 0.01)) * cst(acc, 8)
                                   : (a * 3) / 2;
                break;
            case PointwiseOp::Halve:
                e = acc.is_float() ? a * cst(acc, 0.5) - cst(acc, 1) : a / 2 + 1;
                break;
            default: // Invert
                e = cst(acc, hi) - a;
                break;
            }
        }
        f(v) = finish(e, s.type);
    }

    /** Cast. */
    void build_cast(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        Expr e = load_as(s.producers[0], args, acc);
        if (I[0] == 1) e = e * cst(acc, 2);
        if (I[0] == 2) e = div_const(e, 2);
        f(v) = finish(e, s.type);
    }

    /** Select. */
    void build_select(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        Expr a = load_as(s.producers[0], args, acc);
        Expr b = s.producers.size() > 1 ? load_as(s.producers[1], args, acc) : cst(acc, hi) - a;
        Expr e;
        switch (I[0]) {
        case 0:
            e = Halide::select(a > scalar_as(s.scalars[0], acc), a, b);
            break;
        case 1:
            e = Halide::min(a, b);
            break;
        case 2:
            e = Halide::max(a, b);
            break;
        default:
            e = Halide::clamp(a, scalar_as(s.scalars[0], acc), scalar_as(s.scalars[1], acc));
            break;
        }
        f(v) = finish(e, s.type);
    }

    /** Stencil1D. */
    void build_stencil1d(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int d = I[0], k = I[1], norm = 0;
        Expr sum = cst(acc, 0);
        for (int t = 0; t < k; t++) {
            int w = I[size_t(2 + t)];
            norm += std::abs(w);
            if (w == 0) continue;
            std::vector<Expr> a = args;
            a[size_t(d)] = v[size_t(d)] + (t - k / 2);
            sum = sum + load_as(s.producers[0], a, acc) * cst(acc, w);
        }
        f(v) = finish(div_const(sum, norm), s.type);
    }

    /** Stencil2D. */
    void build_stencil2d(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int d0 = I[0], d1 = I[1], k = I[2], norm = 0;
        Expr sum = cst(acc, 0);
        for (int t0 = 0; t0 < k; t0++) {
            for (int t1 = 0; t1 < k; t1++) {
                int w = I[size_t(3 + t0 * k + t1)];
                norm += std::abs(w);
                if (w == 0) continue;
                std::vector<Expr> a = args;
                a[size_t(d0)] = v[size_t(d0)] + (t0 - k / 2);
                a[size_t(d1)] = v[size_t(d1)] + (t1 - k / 2);
                sum = sum + load_as(s.producers[0], a, acc) * cst(acc, w);
            }
        }
        f(v) = finish(div_const(sum, std::max(norm, 1)), s.type);
    }

    /** Separable2D. */
    void build_separable2d(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int d0 = I[0], d1 = I[1], k = I[2], norm = 0;
        Func tmp(s.name + "_x");
        Expr sx = cst(acc, 0), sy = cst(acc, 0);
        for (int t = 0; t < k; t++) {
            int w = I[size_t(3 + t)];
            norm += std::abs(w);
            if (w == 0) continue;
            std::vector<Expr> a = args;
            a[size_t(d0)] = v[size_t(d0)] + (t - k / 2);
            sx = sx + load_as(s.producers[0], a, acc) * cst(acc, w);
        }
        tmp(v) = sx;
        for (int t = 0; t < k; t++) {
            int w = I[size_t(3 + t)];
            if (w == 0) continue;
            std::vector<Expr> a = args;
            a[size_t(d1)] = v[size_t(d1)] + (t - k / 2);
            sy = sy + tmp(a) * cst(acc, w);
        }
        f(v) = finish(div_const(sy, norm * norm), s.type);
    }

    /** Downsample / Upsample. */
    void build_resample(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        bool down = s.kind == StageKind::Downsample;
        int n = I[0];
        int dims[2] = {I[1], I[2]};
        Expr sum = cst(acc, 0);
        int taps = n == 2 ? 4 : 2;
        for (int t = 0; t < taps; t++) {
            std::vector<Expr> a = args;
            for (int j = 0; j < n; j++) {
                int o = (t >> j) & 1;
                Expr x = v[size_t(dims[j])];
                a[size_t(dims[j])] = down ? x * 2 + o : (x + o) / 2;
            }
            sum = sum + load_as(s.producers[0], a, acc);
        }
        f(v) = finish(div_const(sum, taps), s.type);
    }

    /** Transpose. */
    void build_transpose(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        std::vector<Expr> a(args.size());
        for (size_t j = 0; j < args.size(); j++)
            a[size_t(I[j])] = args[j];
        f(v) = finish(load_as(s.producers[0], a, acc), s.type);
    }

    /** Broadcast. */
    void build_broadcast(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        std::vector<Expr> a(args.begin(), args.end() - 1);
        Expr c = v.back();
        Expr e = load_as(s.producers[0], a, acc) * Halide::cast(acc, c % 4 + 1);
        f(v) = finish(div_const(e, 2), s.type);
    }

    /** Slice. */
    void build_slice(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int d = I[0];
        int extent = st(s.producers[0]).extents[size_t(d)];
        Expr coord = I[2] ? Halide::clamp(scalar_as(s.scalars[0], Halide::Int(32)), 0, extent - 1)
                          : Expr(I[1]);
        std::vector<Expr> a = args;
        a.insert(a.begin() + d, coord);
        f(v) = finish(load_as(s.producers[0], a, acc), s.type);
    }

    /** ReduceSum / ReduceMax / ArgMin. */
    void build_reduction(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int d = I[0], rext = I[1], where_mode = I[2];
        RDom r(0, rext, s.name + "_r");
        if (where_mode == 1) r.where((r.x + v[0]) % 3 != 0);
        std::vector<Expr> a = args;
        a.insert(a.begin() + d, r.x);
        // Predicates use !=: Halide 14's simplifier turns r.x % 2 == 0 into a tighter
        // loop bound that its input-bounds checks do not see (inputs then fail the
        // checks), and a predicate that calls a producer breaks when that producer is
        // an update stage computed inside the reduction (internal error).
        if (where_mode == 2) r.where(r.x % 4 != 2);
        if (s.kind == StageKind::ReduceSum) {
            f(v) = cst(acc, 0);
            f(v) += load_as(s.producers[0], a, acc);
        } else if (s.kind == StageKind::ReduceMax) {
            f(v) = cst(halide_type(s.type), lo);
            f(v) = Halide::max(f(v), finish(load(s.producers[0], a), s.type));
        } else {
            f(v) = Tuple(Expr(0), cst(halide_type(s.type), hi));
            Expr val = finish(load(s.producers[0], a), s.type);
            Expr better = val < f(v)[1];
            f(v) =
                Tuple(Halide::select(better, r.x, f(v)[0]), Halide::select(better, val, f(v)[1]));
        }
    }

    /** TuplePair. */
    void build_tuple_pair(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        Expr a = load_as(s.producers[0], args, acc);
        Expr b;
        if (s.producers.size() > 1) {
            b = load_as(s.producers[1], args, acc);
        } else {
            std::vector<Expr> sh = args;
            sh[0] = sh[0] + 1;
            b = load_as(s.producers[0], sh, acc);
        }
        if (I[0] == 0) {
            f(v) = Tuple(Halide::min(a, b), Halide::max(a, b));
        } else {
            // Readers decode (f[0] + f[1]) / 2; Halide's simplifier folds that to `a` when
            // the pair is inlined, so the arithmetic must be exact for every schedule to
            // agree (seed 477: float rounding moved a later lookup's index). Whole numbers
            // in the canonical range add and subtract exactly in float32 and int32.
            a = Halide::clamp(a, cst(acc, lo), cst(acc, hi));
            b = Halide::clamp(b, cst(acc, lo), cst(acc, hi));
            if (acc.is_float()) a = Halide::floor(a), b = Halide::floor(b);
            f(v) = Tuple(a + b, a - b);
        }
    }

    /** Histogram. */
    void build_histogram(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int bins = I[0], rdims = I[1], where_mode = I[2];
        const StageSpec &A = st(s.producers[0]);
        Halide::Region rr;
        for (int j = 0; j < rdims; j++)
            rr.emplace_back(0, A.extents[size_t(j)]);
        RDom r(rr, s.name + "_r");
        std::vector<Expr> a;
        for (int j = 0; j < int(A.extents.size()); j++)
            a.push_back(j < rdims ? Expr(r[j]) : Expr(0));
        if (where_mode == 1) r.where((rdims > 1 ? r[0] + r[1] : r[0]) % 3 != 1);
        f(v) = 0;
        f(bin_index(s.producers[0], a, bins)) += 1;
    }

    /** Scan. */
    void build_scan(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int d = I[0];
        int e = s.extents[size_t(d)];
        f(v) = load_as(s.producers[0], args, acc);
        RDom r(1, e - 1, s.name + "_r");
        std::vector<Expr> cur = args, prev = args;
        cur[size_t(d)] = r.x;
        prev[size_t(d)] = r.x - 1;
        f(cur) = f(cur) + f(prev);
    }

    /** ConvLayer. */
    void build_conv_layer(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int k = I[0], cin = I[1], cout = I[2], w_input = I[3], wseed = I[5];
        const StageSpec &A = st(s.producers[0]);
        RDom r(0, k, 0, k, 0, cin, s.name + "_r");
        std::vector<Expr> a = {v[0] + r.x - k / 2, v[1] + r.y - k / 2};
        if (A.extents.size() >= 3) a.push_back(r.z);
        if (A.extents.size() == 4) a.push_back(v[3]);
        Expr co = v[2];
        Expr w = w_input
                     ? Halide::cast(acc, input_clamped(s.inputs[0], {r.x, r.y, r.z, co}))
                     : Halide::cast(acc, (r.x * 3 + r.y * 5 + r.z * 7 + co * 11 + wseed) % 9 - 4);
        (void)cout;
        f(v) = cst(acc, 0);
        f(v) += load_as(s.producers[0], a, acc) * w;
    }

    /** MatMul. */
    void build_mat_mul(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int kr = I[0], w_input = I[2], wseed = I[3];
        RDom r(0, kr, s.name + "_r");
        std::vector<Expr> a = args;
        a[0] = r.x;
        Expr j = v[0];
        Expr w = w_input ? Halide::cast(acc, input_clamped(s.inputs[0], {j, r.x}))
                         : Halide::cast(acc, (j * 7 + r.x * 3 + wseed) % 9 - 4);
        f(v) = cst(acc, 0);
        f(v) += load_as(s.producers[0], a, acc) * w;
    }

    /** Lookup. */
    void build_lookup(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int t = I[0], t_input = I[1], formula = I[2];
        Expr idx = bin_index(s.producers[0], args, t);
        if (t_input) {
            f(v) = input_clamped(s.inputs[0], {idx});
        } else {
            Func table(s.name + "_table");
            Var i("i");
            Expr fi = Halide::cast(Halide::Float(32), i);
            Expr frac;
            if (formula == 0)
                frac = Halide::cast(Halide::Float(32), (i * i) % t) * (1.0f / t);
            else if (formula == 1)
                frac = fi * (1.0f / t);
            else
                frac = (Halide::sin(fi * 0.05f) + 1.0f) * 0.5f;
            table(i) = finish(cst(Halide::Float(32), lo) + frac * float(hi - lo), s.type);
            f(v) = table(idx);
        }
    }

    /** Boundary. */
    void build_boundary(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int p = s.producers[0];
        Func bc = apply_boundary(BoundaryKind(I[0]), funcs_[size_t(p)], st(p).extents, st(p).type);
        f(v) = finish(load_from(p, bc, args), s.type);
    }

    /** FanIn. */
    void build_fan_in(const StageCtx &ctx) {
        const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
        int n = int(s.producers.size());
        Expr e;
        if (I[0] == 1) {
            e = load_as(s.producers[0], args, acc);
            for (int j = 1; j < n; j++)
                e = Halide::max(e, load_as(s.producers[size_t(j)], args, acc));
        } else {
            e = cst(acc, 0);
            int total = 0;
            for (int j = 0; j < n; j++) {
                int w = I[0] == 0 ? 1 : n - j;
                total += w;
                e = e + load_as(s.producers[size_t(j)], args, acc) * cst(acc, w);
            }
            e = div_const(e, total);
        }
        f(v) = finish(e, s.type);
    }

    /** A value a quarter of the way up p's canonical range. */
    double where_threshold(int p) const {
        double lo, hi;
        canonical_range(st(p).type, lo, hi);
        return std::floor(lo + (hi - lo) / 4);
    }

    /** Maps producer p's value at args into a bin index in [0, bins). */
    Expr bin_index(int p, const std::vector<Expr> &args, int bins) const {
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
};

} // namespace

std::vector<Func> build_pipeline_funcs(const PipelineSpec &spec, const std::vector<Func> &inputs,
                                       const std::vector<Expr> &scalars) {
    Builder b(spec, inputs, scalars);
    return b.build();
}

} // namespace random_pipelines
} // namespace sextant
