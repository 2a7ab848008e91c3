// Planner: try_add (one stage of a chosen kind) and the pure stage kinds, which Halide's
// default schedule inlines into their consumers. See Planner.cpp for the cost model.
#include "random_pipelines/PlannerImpl.h"

#include <algorithm>
#include <utility>

namespace sextant {
namespace random_pipelines {
namespace detail {

// ---- stage kinds -----------------------------------------------------------------

bool Planner::try_add(StageKind kind, bool last) {
    StageSpec s;
    s.kind = kind;
    switch (kind) {
    case StageKind::InputBoundary:
    case StageKind::Count:
        return false;
    case StageKind::Pointwise:
        return add_pointwise(s);
    case StageKind::Cast:
        return add_cast(s);
    case StageKind::Select:
        return add_select(s);
    case StageKind::Stencil1D:
        return add_stencil_1d(s);
    case StageKind::Stencil2D:
    case StageKind::Separable2D:
        return add_stencil_2d(s, kind);
    case StageKind::Downsample:
    case StageKind::Upsample:
        return add_resample(s, kind);
    case StageKind::Transpose:
        return add_transpose(s);
    case StageKind::Broadcast:
        return add_broadcast(s);
    case StageKind::Slice:
        return add_slice(s);
    case StageKind::ReduceSum:
    case StageKind::ReduceMax:
    case StageKind::ArgMin:
        return add_reduction(s, kind, last);
    case StageKind::TuplePair:
        return add_tuple_pair(s, last);
    case StageKind::Histogram:
        return add_histogram(s);
    case StageKind::Scan:
        return add_scan(s);
    case StageKind::ConvLayer:
        return add_conv_layer(s);
    case StageKind::MatMul:
        return add_matmul(s);
    case StageKind::Lookup:
        return add_lookup(s);
    case StageKind::Boundary:
        return add_boundary(s);
    case StageKind::FanIn:
        return add_fan_in(s);
    }
    return false;
}

bool Planner::add_pointwise(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.producers = {a};
    int b = -1;
    if (rng_.chance(0.6)) {
        size_t nd = st(a).extents.size();
        b = choose_producer([&](const StageSpec &x) { return x.extents.size() == nd; }, a);
    }
    if (b >= 0) {
        s.producers.push_back(b);
        s.ints = {int(rng_.uniform(int(PointwiseOp::Add), int(PointwiseOp::SelectLarger)))};
    } else {
        const int op = int(rng_.uniform(int(PointwiseOp::Affine), int(PointwiseOp::Invert)));
        s.ints = {op};
        if (PointwiseOp(op) == PointwiseOp::Affine) {
            if (is_float(s.type)) {
                s.scalars = {
                    add_scalar(ElemType::Float32, 0.25 * double(rng_.uniform(1, 12)), "scale"),
                    add_scalar(ElemType::Float32, double(rng_.uniform(-64, 64)), "offset")};
            } else {
                s.scalars = {add_scalar(ElemType::Int32, double(rng_.uniform(1, 5)), "scale"),
                             add_scalar(ElemType::Int32, double(rng_.uniform(-64, 64)), "offset")};
            }
        }
    }
    double c = 0, t = 0;
    for (int p : s.producers) {
        c += access_cost(p);
        t += access_tree(p);
    }
    pure_cost(s, 4, c, t);
    return accept(std::move(s));
}

bool Planner::add_cast(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    s.producers = {a};
    s.extents = st(a).extents;
    do {
        s.type = random_type();
    } while (s.type == st(a).type);
    s.ints = {int(rng_.uniform(0, 2))};
    pure_cost(s, 2, access_cost(a), access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_select(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    int mode = int(rng_.uniform(0, 3));
    int b = -1;
    if (mode <= 2) {
        size_t nd = st(a).extents.size();
        b = choose_producer([&](const StageSpec &x) { return x.extents.size() == nd; }, a);
        if (b < 0 && mode != 0) {
            mode = 3;
        }
    }
    s.ints = {mode};
    if (b >= 0) {
        s.producers.push_back(b);
    }
    if (mode == 0) {
        s.scalars = {add_threshold(s.type, "threshold")};
    } else if (mode == 3) {
        s.scalars = {add_threshold(s.type, "lo", 0.0, 0.4), add_threshold(s.type, "hi", 0.6, 1.0)};
    }
    double c = 0, t = 0;
    for (int p : s.producers) {
        c += 2 * access_cost(p); // select reads a twice (condition and value)
        t += 2 * access_tree(p);
    }
    pure_cost(s, 4, c, t);
    return accept(std::move(s));
}

bool Planner::add_stencil_1d(StageSpec &s) {
    int a = choose_producer(single);
    if (a < 0) return false;
    int d = random_spatial_dim(st(a), 8);
    if (d < 0) return false;
    int k = 3 + 2 * int(rng_.uniform(0, 2));
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.ints = {d, k};
    for (int w : weights_for(k))
        s.ints.push_back(w);
    pure_cost(s, 3 + k, k * access_cost(a), k * access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_stencil_2d(StageSpec &s, StageKind kind) {
    int a = choose_producer(
        [](const StageSpec &x) { return x.tuple_size == 1 && x.extents.size() >= 2; });
    if (a < 0) return false;
    int d0 = random_spatial_dim(st(a), 8);
    if (d0 < 0) return false;
    int d1 = random_spatial_dim(st(a), 8, d0);
    if (d1 < 0) return false;
    int k = 3 + 2 * rng_.weighted({60, 30, 10});
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.ints = {d0, d1, k};
    bool sep = kind == StageKind::Separable2D;
    for (int w : weights_for(sep ? k : k * k))
        s.ints.push_back(w);
    pure_cost(s, 3 + (sep ? 2 * k : k * k), k * k * access_cost(a), k * k * access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_resample(StageSpec &s, StageKind kind) {
    bool down = kind == StageKind::Downsample;
    int a = choose_producer(single);
    if (a < 0) return false;
    std::vector<int> ok;
    for (int d = 0; d < int(st(a).extents.size()); d++) {
        int e = st(a).extents[size_t(d)];
        if (down ? (e >= 2 * opts_.min_extent) : (e >= 16 && 2 * e <= opts_.max_extent)) {
            ok.push_back(d);
        }
    }
    if (ok.empty()) return false;
    int n = (ok.size() >= 2 && rng_.chance(0.6)) ? 2 : 1;
    int d0 = rng_.pick(ok), d1 = -1;
    if (n == 2) {
        do {
            d1 = rng_.pick(ok);
        } while (d1 == d0);
    }
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    for (int d : {d0, d1}) {
        if (d >= 0) {
            s.extents[size_t(d)] = down ? s.extents[size_t(d)] / 2 : s.extents[size_t(d)] * 2;
        }
    }
    s.ints = {n, d0, d1};
    int taps = n == 2 ? 4 : 2;
    pure_cost(s, 2 + taps, taps * access_cost(a), taps * access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_transpose(StageSpec &s) {
    int a = choose_producer([](const StageSpec &x) { return x.extents.size() >= 2; });
    if (a < 0) return false;
    int nd = int(st(a).extents.size());
    std::vector<int> perm(static_cast<size_t>(nd), 0);
    for (int i = 0; i < nd; i++)
        perm[size_t(i)] = i;
    // Fisher-Yates with our Rng, retried until not the identity.
    for (int tries = 0; tries < 8; tries++) {
        for (int i = nd - 1; i > 0; i--) {
            std::swap(perm[size_t(i)], perm[size_t(rng_.uniform(0, i))]);
        }
        bool identity = true;
        for (int i = 0; i < nd; i++)
            identity &= perm[size_t(i)] == i;
        if (!identity) break;
    }
    bool identity = true;
    for (int i = 0; i < nd; i++)
        identity &= perm[size_t(i)] == i;
    if (identity) std::swap(perm[0], perm[1]);
    s.producers = {a};
    s.type = st(a).type;
    for (int i = 0; i < nd; i++)
        s.extents.push_back(st(a).extents[size_t(perm[size_t(i)])]);
    s.ints = perm;
    pure_cost(s, 1, access_cost(a), access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_broadcast(StageSpec &s) {
    int a = choose_producer([&](const StageSpec &x) { return int(x.extents.size()) < max_dims_; });
    if (a < 0) return false;
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.extents.push_back(random_channels());
    pure_cost(s, 4, access_cost(a), access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_slice(StageSpec &s) {
    int a = choose_producer([](const StageSpec &x) { return x.extents.size() >= 2; });
    if (a < 0) return false;
    int d = int(rng_.uniform(0, int(st(a).extents.size()) - 1));
    int coord = int(rng_.uniform(0, st(a).extents[size_t(d)] - 1));
    bool use_param = rng_.chance(0.4);
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.extents.erase(s.extents.begin() + d);
    s.ints = {d, coord, use_param ? 1 : 0};
    if (use_param) s.scalars = {add_scalar(ElemType::Int32, coord, "index")};
    pure_cost(s, 3, access_cost(a), access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_tuple_pair(StageSpec &s, bool last) {
    if (last) return false;
    int a = choose_producer(single);
    if (a < 0) return false;
    size_t nd = st(a).extents.size();
    int b = choose_producer(
        [&](const StageSpec &x) { return x.tuple_size == 1 && x.extents.size() == nd; }, a);
    s.producers = {a};
    if (b >= 0) s.producers.push_back(b);
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.tuple_size = 2;
    s.ints = {int(rng_.uniform(0, 1)), b >= 0 ? 0 : 1};
    double c = access_cost(a) + (b >= 0 ? access_cost(b) : access_cost(a));
    double t = access_tree(a) + (b >= 0 ? access_tree(b) : access_tree(a));
    pure_cost(s, 4, 2 * c, 2 * t);
    return accept(std::move(s));
}

bool Planner::add_lookup(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    int t = 64 << (2 * int(rng_.uniform(0, 2))); // 64, 256, 1024
    bool t_input = rng_.chance(0.5);
    ElemType tt = random_type();
    s.producers = {a};
    s.type = tt;
    s.extents = st(a).extents;
    if (t_input) {
        double lo, hi;
        canonical_range(tt, lo, hi);
        s.inputs = {new_aux_input(InputRole::Table, tt, {t}, lo, hi)};
    }
    s.ints = {t, t_input ? 1 : 0, int(rng_.uniform(0, 2))};
    pure_cost(s, t_input ? 6 : 10, access_cost(a), access_tree(a));
    if (!accept(s)) {
        drop_aux_inputs(s);
        return false;
    }
    return true;
}

bool Planner::add_boundary(StageSpec &s) {
    int a = choose_producer(single);
    if (a < 0) return false;
    s.producers = {a};
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.ints = {int(rng_.uniform(0, int(BoundaryKind::Count) - 1))};
    pure_cost(s, 4, access_cost(a), access_tree(a));
    return accept(std::move(s));
}

bool Planner::add_fan_in(StageSpec &s) {
    int a = choose_producer(any);
    if (a < 0) return false;
    size_t nd = st(a).extents.size();
    s.producers = {a};
    int want = int(rng_.uniform(2, 3));
    for (int i = 1; i < want; i++) {
        int b = choose_producer([&](const StageSpec &x) { return x.extents.size() == nd; }, a);
        if (b >= 0 && std::find(s.producers.begin(), s.producers.end(), b) == s.producers.end()) {
            s.producers.push_back(b);
        }
    }
    if (s.producers.size() < 2) return false;
    s.type = st(a).type;
    s.extents = st(a).extents;
    s.ints = {int(rng_.uniform(0, 2))};
    double c = 0, t = 0;
    for (int p : s.producers) {
        c += access_cost(p);
        t += access_tree(p);
    }
    pure_cost(s, 2 + 2 * double(s.producers.size()), c, t);
    return accept(std::move(s));
}

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
