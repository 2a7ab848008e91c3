// The pure stage kinds of the Builder (BuilderImpl.h): each defines its Func once.
#include "random_pipelines/BuilderImpl.h"

#include <algorithm>
#include <cmath>

namespace sextant {
namespace random_pipelines {
namespace detail {

/** InputBoundary. */
void Builder::build_input_boundary(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    int in = s.inputs[0];
    const std::vector<int> &ext = spec_.inputs[size_t(in)].extents;
    // Guard: Halide 14's bounds inference can over-estimate the input region read
    // through mirror/repeat conditions after loop partitioning (seed 8 read
    // [0, 640] of a 640-wide input); clamping first pins it to the estimates.
    // Unguarded (for fuzzing, RandomPipelineOptions::unguarded_inputs): the input read as is,
    // through a max with its lowest value, which changes no value but keeps `src` from being
    // a pure copy of the input (the DAG builder inlines those as the input's wrappers).
    const bool guarded = I.size() < 2 || I[1] == 0;
    Func src(s.name + (guarded ? "_guard" : "_src"));
    std::vector<Var> gv = make_vars(ext.size());
    std::vector<Expr> ga;
    for (size_t d = 0; d < gv.size(); d++)
        ga.push_back(guarded ? Halide::clamp(gv[d], 0, ext[d] - 1) : Expr(gv[d]));
    const Expr read = inputs_[size_t(in)](ga);
    src(gv) = guarded ? read : Halide::max(read, cst(read.type(), spec_.inputs[size_t(in)].lo));
    Func bc = apply_boundary(BoundaryKind(I[0]), src, spec_.inputs[size_t(in)].extents, s.type);
    f(v) = bc(args);
}

/** Pointwise. */
void Builder::build_pointwise(const StageCtx &ctx) {
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
            e = acc.is_float() ? a * a * cst(acc, 1.0 / 256)
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
void Builder::build_cast(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    Expr e = load_as(s.producers[0], args, acc);
    if (I[0] == 1) e = e * cst(acc, 2);
    if (I[0] == 2) e = div_const(e, 2);
    f(v) = finish(e, s.type);
}

/** Select. */
void Builder::build_select(const StageCtx &ctx) {
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
void Builder::build_stencil1d(const StageCtx &ctx) {
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
void Builder::build_stencil2d(const StageCtx &ctx) {
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
void Builder::build_separable2d(const StageCtx &ctx) {
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
void Builder::build_resample(const StageCtx &ctx) {
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
void Builder::build_transpose(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    std::vector<Expr> a(args.size());
    for (size_t j = 0; j < args.size(); j++)
        a[size_t(I[j])] = args[j];
    f(v) = finish(load_as(s.producers[0], a, acc), s.type);
}

/** Broadcast. */
void Builder::build_broadcast(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    std::vector<Expr> a(args.begin(), args.end() - 1);
    Expr c = v.back();
    Expr e = load_as(s.producers[0], a, acc) * Halide::cast(acc, c % 4 + 1);
    f(v) = finish(div_const(e, 2), s.type);
}

/** Slice. */
void Builder::build_slice(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    int d = I[0];
    int extent = st(s.producers[0]).extents[size_t(d)];
    Expr coord =
        I[2] ? Halide::clamp(scalar_as(s.scalars[0], Halide::Int(32)), 0, extent - 1) : Expr(I[1]);
    std::vector<Expr> a = args;
    a.insert(a.begin() + d, coord);
    f(v) = finish(load_as(s.producers[0], a, acc), s.type);
}

/** Lookup. */
void Builder::build_lookup(const StageCtx &ctx) {
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
void Builder::build_boundary(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    int p = s.producers[0];
    Func bc = apply_boundary(BoundaryKind(I[0]), funcs_[size_t(p)], st(p).extents, st(p).type);
    f(v) = finish(load_from(p, bc, args), s.type);
}

/** FanIn. */
void Builder::build_fan_in(const StageCtx &ctx) {
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

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
