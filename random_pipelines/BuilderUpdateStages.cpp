// The Builder's stage kinds with update definitions (BuilderImpl.h): reductions, tuple pair,
// histogram, scan, conv layer, matmul.
#include "random_pipelines/BuilderImpl.h"

#include <algorithm>
#include <cmath>

namespace sextant {
namespace random_pipelines {
namespace detail {

/** ReduceSum / ReduceMax / ArgMin. */
void Builder::build_reduction(const StageCtx &ctx) {
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
        f(v) = Tuple(Halide::select(better, r.x, f(v)[0]), Halide::select(better, val, f(v)[1]));
    }
}

/** TuplePair. */
void Builder::build_tuple_pair(const StageCtx &ctx) {
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
void Builder::build_histogram(const StageCtx &ctx) {
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
void Builder::build_scan(const StageCtx &ctx) {
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
void Builder::build_conv_layer(const StageCtx &ctx) {
    const auto &[s, f, v, args, acc, lo, hi, I] = ctx;
    int k = I[0], cin = I[1], cout = I[2], w_input = I[3], wseed = I[5];
    const StageSpec &A = st(s.producers[0]);
    RDom r(0, k, 0, k, 0, cin, s.name + "_r");
    std::vector<Expr> a = {v[0] + r.x - k / 2, v[1] + r.y - k / 2};
    if (A.extents.size() >= 3) a.push_back(r.z);
    if (A.extents.size() == 4) a.push_back(v[3]);
    Expr co = v[2];
    Expr w = w_input ? Halide::cast(acc, input_clamped(s.inputs[0], {r.x, r.y, r.z, co}))
                     : Halide::cast(acc, (r.x * 3 + r.y * 5 + r.z * 7 + co * 11 + wseed) % 9 - 4);
    (void)cout;
    f(v) = cst(acc, 0);
    f(v) += load_as(s.producers[0], a, acc) * w;
}

/** MatMul. */
void Builder::build_mat_mul(const StageCtx &ctx) {
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

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
