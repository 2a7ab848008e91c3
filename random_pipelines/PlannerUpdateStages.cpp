// Planner: the stage kinds with update definitions (reductions, histogram, scan, conv layer,
// matmul). Halide's default schedule computes these at the innermost loop of their
// consumer; see Planner.cpp for the cost model.
#include "random_pipelines/PlannerImpl.h"

#include <algorithm>
#include <utility>

namespace sextant {
namespace random_pipelines {
namespace detail {

bool Planner::add_reduction(StageSpec &s, StageKind kind, bool last) {
    if (last && kind == StageKind::ArgMin) return false;
    int a = choose_producer([](const StageSpec &x) { return x.extents.size() >= 2; });
    if (a < 0) return false;
    int d = int(rng_.uniform(0, int(st(a).extents.size()) - 1));
    int rext = std::min(st(a).extents[size_t(d)], 4096);
    s.producers = {a};
    s.extents = st(a).extents;
    s.extents.erase(s.extents.begin() + d);
    int where_mode = kind == StageKind::ArgMin ? 0 : rng_.weighted({60, 20, 20});
    s.ints = {d, rext, where_mode};
    if (kind == StageKind::ReduceSum) {
        s.type = acc_elem_type(st(a).type);
        s.clamp_on_access = true;
    } else {
        s.type = st(a).type;
    }
    if (kind == StageKind::ArgMin) s.tuple_size = 2;
    s.has_update = true;
    s.point_cost = 2 + rext * (3 + access_cost(a));
    s.tree_size = 1;
    s.root_cost = points_of(s.extents) * s.point_cost;
    if (access_tree(a) + 6 > opts_.max_tree_size) return false;
    return accept(std::move(s));
}

bool Planner::add_histogram(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    int bins = 64 << int(rng_.uniform(0, 2));
    int rdims = std::min(3, int(st(a).extents.size()));
    double r = 1;
    for (int d = 0; d < rdims; d++)
        r *= st(a).extents[size_t(d)];
    s.producers = {a};
    s.type = ElemType::Int32;
    s.extents = {bins};
    s.clamp_on_access = true;
    s.has_update = true;
    s.ints = {bins, rdims, rng_.weighted({70, 30})};
    s.point_cost = 1;
    s.fixed_cost = bins + r * (6 + access_cost(a));
    s.tree_size = 1;
    s.root_cost = s.fixed_cost;
    if (access_tree(a) + 10 > opts_.max_tree_size) return false;
    return accept(std::move(s));
}

bool Planner::add_scan(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    int d = random_spatial_dim(st(a), 2);
    if (d < 0) return false;
    int e = st(a).extents[size_t(d)];
    s.producers = {a};
    s.type = acc_elem_type(st(a).type);
    s.extents = st(a).extents;
    s.clamp_on_access = true;
    s.has_update = true;
    s.ints = {d};
    s.point_cost = 1;
    s.fixed_cost = e * (4 + access_cost(a));
    s.tree_size = 1;
    s.root_cost = points_of(s.extents) * (4 + access_cost(a));
    if (access_tree(a) + 6 > opts_.max_tree_size) return false;
    return accept(std::move(s));
}

bool Planner::add_conv_layer(StageSpec &s) {
    int a = choose_producer(
        [](const StageSpec &x) { return x.tuple_size == 1 && x.extents.size() >= 2; });
    if (a < 0) return false;
    const StageSpec &A = st(a);
    int k = rng_.chance(0.7) ? 3 : 1;
    int cin = A.extents.size() >= 3 ? std::min(A.extents[2], 16) : 1;
    int cout = random_channels();
    bool w_input = rng_.chance(0.5);
    s.producers = {a};
    s.type = acc_elem_type(A.type);
    s.extents = {A.extents[0], A.extents[1], cout};
    if (A.extents.size() == 4) s.extents.push_back(A.extents[3]);
    s.clamp_on_access = true;
    s.has_update = true;
    double wc = 4;
    if (w_input) {
        ElemType wt = is_float(A.type) ? ElemType::Float32 : ElemType::Int16;
        s.inputs = {new_aux_input(InputRole::Weights, wt, {k, k, cin, cout}, -4, 4)};
        wc = 2;
    }
    int relu = int(rng_.uniform(0, 1)), wseed = int(rng_.uniform(0, 1000));
    // Shrink (fewer output channels, 1x1, fewer input channels) until it fits.
    for (int shrink = 0; shrink < 4; shrink++) {
        s.extents[2] = cout;
        s.ints = {k, cin, cout, w_input ? 1 : 0, relu, wseed};
        s.point_cost = 2 + k * k * cin * (3 + access_cost(a) + wc);
        s.tree_size = 1;
        s.root_cost = points_of(s.extents) * s.point_cost;
        if (work_with(s) <= opts_.max_work) break;
        if (shrink == 0) cout = opts_.min_channels;
        if (shrink == 1) k = 1;
        if (shrink == 2) cin = std::min(cin, 2);
    }
    if (w_input) spec_.inputs[size_t(s.inputs[0])].extents = {k, k, cin, cout};
    return accept_with_aux(s, a);
}

bool Planner::add_matmul(StageSpec &s) {
    int a = choose_producer([](const StageSpec &x) {
        return x.tuple_size == 1 && x.extents.size() >= 2 && x.extents.size() <= 3;
    });
    if (a < 0) return false;
    const StageSpec &A = st(a);
    int kr = std::min(A.extents[0], 512);
    int n = int(rng_.uniform(opts_.min_extent,
                             std::max(opts_.min_extent, std::min(256, opts_.max_extent))));
    bool w_input = rng_.chance(0.5);
    s.producers = {a};
    s.type = acc_elem_type(A.type);
    s.extents = A.extents;
    s.extents[0] = n;
    s.clamp_on_access = true;
    s.has_update = true;
    double wc = 4;
    if (w_input) {
        ElemType wt = is_float(A.type) ? ElemType::Float32 : ElemType::Int16;
        s.inputs = {new_aux_input(InputRole::Weights, wt, {n, kr}, -4, 4)};
        wc = 2;
    }
    int wseed = int(rng_.uniform(0, 1000));
    // Shrink (narrower result, shorter reduction) until it fits.
    for (int shrink = 0; shrink < 6; shrink++) {
        s.extents[0] = n;
        s.ints = {kr, n, w_input ? 1 : 0, wseed};
        s.point_cost = 2 + kr * (3 + access_cost(a) + wc);
        s.tree_size = 1;
        s.root_cost = points_of(s.extents) * s.point_cost;
        if (work_with(s) <= opts_.max_work) break;
        if (shrink == 0)
            n = opts_.min_extent;
        else
            kr = std::max(8, kr / 4);
    }
    if (w_input) spec_.inputs[size_t(s.inputs[0])].extents = {n, kr};
    return accept_with_aux(s, a);
}

bool Planner::accept_with_aux(StageSpec &s, int producer) {
    if (access_tree(producer) + 10 > opts_.max_tree_size || !accept(s)) {
        drop_aux_inputs(s);
        return false;
    }
    return true;
}

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
