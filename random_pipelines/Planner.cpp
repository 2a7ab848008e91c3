// Planner: chooses the structure of a random pipeline (see Planner.h).
//
// Cost model (abstract ops, ~1 ns each unvectorised), mirroring Halide's default schedule:
// outputs are computed at root; pure stages are inlined into every consumer (so a
// consumer pays taps x producer cost); stages with update definitions are computed at
// the innermost loop of their consumer, so a consumer pays their per-point cost per
// tap, plus their fixed cost (a whole-domain recompute: histograms, scans) per tap.
// The model is conservative (it ignores CSE); it only has to bound run and compile time.
#include "random_pipelines/Planner.h"

#include "random_pipelines/Rng.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace sextant {
namespace random_pipelines {

namespace {

double points_of(const std::vector<int> &extents) {
    double p = 1;
    for (int e : extents) {
        p *= e;
    }
    return p;
}

ElemType acc_elem_type(ElemType t) {
    if (t == ElemType::Float64) {
        return ElemType::Float64;
    }
    if (t == ElemType::Float32) {
        return ElemType::Float32;
    }
    return ElemType::Int32;
}

std::vector<double> default_kind_weights() {
    std::vector<double> w(size_t(StageKind::Count), 0.0);
    auto set = [&](StageKind k, double v) { w[size_t(k)] = v; };
    set(StageKind::Pointwise, 10);
    set(StageKind::Cast, 5);
    set(StageKind::Select, 5);
    set(StageKind::Stencil1D, 6);
    set(StageKind::Stencil2D, 5);
    set(StageKind::Separable2D, 5);
    set(StageKind::Downsample, 4);
    set(StageKind::Upsample, 4);
    set(StageKind::Transpose, 4);
    set(StageKind::Broadcast, 4);
    set(StageKind::Slice, 3);
    set(StageKind::ReduceSum, 5);
    set(StageKind::ReduceMax, 4);
    set(StageKind::ArgMin, 3);
    set(StageKind::TuplePair, 3);
    set(StageKind::Histogram, 4);
    set(StageKind::Scan, 4);
    set(StageKind::ConvLayer, 4);
    set(StageKind::MatMul, 4);
    set(StageKind::Lookup, 4);
    set(StageKind::Boundary, 4);
    set(StageKind::FanIn, 5);
    return w;
}

class Planner {
public:
    Planner(uint64_t seed, const RandomPipelineOptions &opts)
        : rng_(mix64(seed ^ 0x5e97a17ull)), opts_(opts) {
        spec_.seed = seed;
        weights_ = opts.kind_weights.empty() ? default_kind_weights() : opts.kind_weights;
        weights_.resize(size_t(StageKind::Count), 0.0);
        weights_[size_t(StageKind::InputBoundary)] = 0;
        max_dims_ = std::max(1, std::min(4, opts.max_dims));
    }

    PipelineSpec run() {
        int min_stages = std::max(1, opts_.min_stages);
        int max_stages = std::max(min_stages, opts_.max_stages);
        int target = int(rng_.uniform(min_stages, max_stages));
        int n_inputs =
            int(rng_.uniform(1, std::max(1, std::min(opts_.max_inputs, target >= 6 ? 3 : 2))));
        for (int i = 0; i < n_inputs && int(spec_.stages.size()) < target; i++) {
            int in = new_data_input();
            add_input_boundary(in);
        }
        while (int(spec_.stages.size()) < target) {
            bool last = int(spec_.stages.size()) == target - 1;
            bool added = false;
            for (int attempt = 0; attempt < 30 && !added; attempt++) {
                StageKind kind = StageKind(rng_.weighted(weights_));
                added = try_add(kind, last);
            }
            if (!added) {
                break;
            }
        }
        choose_outputs();
        return std::move(spec_);
    }

private:
    Rng rng_;
    RandomPipelineOptions opts_;
    PipelineSpec spec_;
    std::vector<double> weights_;
    int max_dims_ = 4;

    // ---- small helpers -------------------------------------------------------------

    const StageSpec &st(int i) const { return spec_.stages[size_t(i)]; }

    double access_cost(int p) const {
        const StageSpec &s = st(p);
        return s.point_cost + s.fixed_cost + (s.tuple_size > 1 ? 3 : 0) +
               (s.clamp_on_access ? 2 : 0);
    }

    double access_tree(int p) const {
        const StageSpec &s = st(p);
        return (s.has_update ? 1.0 : s.tree_size) + (s.tuple_size > 1 ? 3 : 0);
    }

    bool is_sink(int i) const {
        for (size_t j = size_t(i) + 1; j < spec_.stages.size(); j++) {
            for (int p : spec_.stages[j].producers) {
                if (p == i) {
                    return false;
                }
            }
        }
        return true;
    }

    ElemType random_type() {
        static const ElemType types[] = {ElemType::UInt8, ElemType::UInt16,  ElemType::Int16,
                                         ElemType::Int32, ElemType::Float32, ElemType::Float64};
        int i = rng_.weighted({30, 15, 12, 13, 25, 5});
        return types[i];
    }

    int random_spatial_extent() {
        // Log-uniform in [min_extent, max_extent].
        double lo = std::log2(double(std::max(1, opts_.min_extent)));
        double hi = std::log2(double(std::max(opts_.min_extent, opts_.max_extent)));
        double e = std::exp2(lo + (hi - lo) * rng_.unit());
        int v = int(e);
        return std::max(opts_.min_extent, std::min(opts_.max_extent, v));
    }

    int random_channels() {
        return int(
            rng_.uniform(opts_.min_channels, std::max(opts_.min_channels, opts_.max_channels)));
    }

    int add_scalar(ElemType t, double value, const std::string &role) {
        ScalarSpec s;
        s.type = t;
        s.value = value;
        s.name = "p" + std::to_string(spec_.scalars.size()) + "_" + role;
        spec_.scalars.push_back(s);
        return int(spec_.scalars.size()) - 1;
    }

    /** A threshold-like scalar inside the canonical range of t (Int32 or Float32 param). */
    int add_threshold(ElemType t, const std::string &role, double frac_lo = 0.2,
                      double frac_hi = 0.8) {
        double lo, hi;
        canonical_range(t, lo, hi);
        double f = frac_lo + (frac_hi - frac_lo) * rng_.unit();
        double v = lo + f * (hi - lo);
        if (is_float(t)) {
            v = std::floor(v * 16) / 16; // exactly representable in float
            return add_scalar(ElemType::Float32, v, role);
        }
        return add_scalar(ElemType::Int32, std::floor(v), role);
    }

    int new_data_input() {
        InputSpec in;
        in.type = random_type();
        in.role = InputRole::Data;
        int dims = 1 + rng_.weighted({10, 45, 35, 10});
        dims = std::min(dims, max_dims_);
        for (int d = 0; d < dims; d++) {
            in.extents.push_back(d < 2 ? random_spatial_extent() : random_channels());
        }
        while (points_of(in.extents) > double(opts_.max_input_points)) {
            int big = in.extents[0] >= (dims > 1 ? in.extents[1] : 0) ? 0 : 1;
            if (in.extents[big] / 2 < opts_.min_extent) {
                break;
            }
            in.extents[big] /= 2;
        }
        canonical_range(in.type, in.lo, in.hi);
        in.name = "in" + std::to_string(spec_.inputs.size());
        spec_.inputs.push_back(in);
        return int(spec_.inputs.size()) - 1;
    }

    int new_aux_input(InputRole role, ElemType t, std::vector<int> extents, double lo, double hi) {
        InputSpec in;
        in.type = t;
        in.role = role;
        in.extents = std::move(extents);
        in.lo = lo;
        in.hi = hi;
        in.name = "in" + std::to_string(spec_.inputs.size()) +
                  (role == InputRole::Weights ? "_weights" : "_table");
        spec_.inputs.push_back(in);
        return int(spec_.inputs.size()) - 1;
    }

    void add_input_boundary(int in) {
        StageSpec s;
        s.kind = StageKind::InputBoundary;
        s.type = spec_.inputs[size_t(in)].type;
        s.extents = spec_.inputs[size_t(in)].extents;
        s.inputs = {in};
        s.ints = {int(rng_.uniform(0, int(BoundaryKind::Count) - 1))};
        s.point_cost = 4;
        s.tree_size = 4;
        s.root_cost = points_of(s.extents) * s.point_cost;
        commit(std::move(s));
    }

    void commit(StageSpec s) {
        s.name = "s" + std::to_string(spec_.stages.size()) + "_" + kind_name(s.kind);
        spec_.stages.push_back(std::move(s));
    }

    /** Candidate producer satisfying pred: prefers current sinks (keeps the DAG
     *  connected), otherwise any stage (fan-out). Returns -1 if none. */
    int choose_producer(const std::function<bool(const StageSpec &)> &pred, int exclude = -1) {
        std::vector<int> sinks, all;
        for (int i = 0; i < int(spec_.stages.size()); i++) {
            if (i == exclude || !pred(st(i))) {
                continue;
            }
            all.push_back(i);
            if (is_sink(i)) {
                sinks.push_back(i);
            }
        }
        if (all.empty()) {
            return -1;
        }
        if (!sinks.empty() && rng_.chance(0.75)) {
            return rng_.pick(sinks);
        }
        return rng_.pick(all);
    }

    /** Total work if the current sinks (plus candidate) were the outputs. */
    double work_with(const StageSpec &cand) const {
        double w = cand.root_cost;
        for (int i = 0; i < int(spec_.stages.size()); i++) {
            bool consumed =
                std::find(cand.producers.begin(), cand.producers.end(), i) != cand.producers.end();
            if (!consumed && is_sink(i)) {
                w += st(i).root_cost;
            }
        }
        return w;
    }

    static bool remaps(StageKind k) {
        return k == StageKind::Downsample || k == StageKind::Upsample ||
               k == StageKind::Transpose || k == StageKind::Slice || k == StageKind::Broadcast ||
               k == StageKind::ConvLayer || k == StageKind::MatMul || k == StageKind::Histogram ||
               k == StageKind::ReduceSum || k == StageKind::ReduceMax || k == StageKind::ArgMin;
    }

    /** Halide computes an update stage at the innermost loop of its consumer over the
     *  bounding box of everything that consumer reads from it. If two read paths map
     *  coordinates differently (e.g. f(x) and f(2x) via an inlined downsample), that box
     *  grows with x, so charge the whole domain of the update stage per point. */
    void account_update_paths(StageSpec &s) const {
        std::vector<std::pair<int, bool>> paths;
        bool remap = remaps(s.kind);
        for (int p : s.producers) {
            if (st(p).has_update) {
                paths.emplace_back(p, remap);
            } else {
                for (const auto &u : st(p).inlined_updates)
                    paths.emplace_back(u.first, u.second || remap);
            }
        }
        std::vector<int> charged;
        for (size_t i = 0; i < paths.size(); i++) {
            for (size_t j = i + 1; j < paths.size(); j++) {
                int u = paths[i].first;
                if (u != paths[j].first || !(paths[i].second || paths[j].second)) continue;
                if (std::find(charged.begin(), charged.end(), u) != charged.end()) continue;
                charged.push_back(u);
                double whole = (st(u).point_cost + st(u).fixed_cost) * points_of(st(u).extents);
                s.point_cost += whole;
                s.root_cost = s.has_update ? s.root_cost + whole * points_of(s.extents)
                                           : points_of(s.extents) * s.point_cost;
            }
        }
        if (!s.has_update) {
            std::sort(paths.begin(), paths.end());
            paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
            s.inlined_updates = paths;
        }
    }

    bool accept(StageSpec s) {
        account_update_paths(s);
        if (s.tree_size > opts_.max_tree_size) {
            return false;
        }
        for (int e : s.extents) {
            if (e < 1 || e > std::max(opts_.max_extent, opts_.max_channels)) {
                return false;
            }
        }
        if (s.extents.empty() || int(s.extents.size()) > max_dims_) {
            return false;
        }
        if (work_with(s) > opts_.max_work) {
            return false;
        }
        commit(std::move(s));
        return true;
    }

    /** Pure stage: cost per point = own ops + taps * producer access cost. */
    static void pure_cost(StageSpec &s, double own, double taps_cost, double taps_tree) {
        s.point_cost = own + taps_cost;
        s.tree_size = own + taps_tree;
        s.root_cost = points_of(s.extents) * s.point_cost;
    }

    std::vector<int> weights_for(int k) {
        std::vector<int> w(static_cast<size_t>(k), 0);
        for (int i = 0; i < k; i++) {
            w[size_t(i)] = int(rng_.uniform(-1, 4));
        }
        w[size_t(k / 2)] = int(rng_.uniform(1, 4)); // non-zero centre: norm >= 1
        return w;
    }

    int random_spatial_dim(const StageSpec &a, int min_extent, int exclude = -1) {
        std::vector<int> ok;
        for (int d = 0; d < int(a.extents.size()); d++) {
            if (d != exclude && a.extents[size_t(d)] >= min_extent) {
                ok.push_back(d);
            }
        }
        return ok.empty() ? -1 : rng_.pick(ok);
    }

    // ---- stage kinds -----------------------------------------------------------------

    bool try_add(StageKind kind, bool last) {
        auto any = [](const StageSpec &) { return true; };
        auto single = [](const StageSpec &s) { return s.tuple_size == 1; };
        StageSpec s;
        s.kind = kind;
        switch (kind) {
        case StageKind::InputBoundary:
        case StageKind::Count:
            return false;
        case StageKind::Pointwise: {
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
                s.ints = {int(rng_.uniform(0, 5))};
            } else {
                int op = int(rng_.uniform(10, 14));
                s.ints = {op};
                if (op == 10) {
                    if (is_float(s.type)) {
                        s.scalars = {
                            add_scalar(ElemType::Float32, 0.25 * double(rng_.uniform(1, 12)),
                                       "scale"),
                            add_scalar(ElemType::Float32, double(rng_.uniform(-64, 64)), "offset")};
                    } else {
                        s.scalars = {
                            add_scalar(ElemType::Int32, double(rng_.uniform(1, 5)), "scale"),
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
        case StageKind::Cast: {
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
        case StageKind::Select: {
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
                s.scalars = {add_threshold(s.type, "lo", 0.0, 0.4),
                             add_threshold(s.type, "hi", 0.6, 1.0)};
            }
            double c = 0, t = 0;
            for (int p : s.producers) {
                c += 2 * access_cost(p); // select reads a twice (condition and value)
                t += 2 * access_tree(p);
            }
            pure_cost(s, 4, c, t);
            return accept(std::move(s));
        }
        case StageKind::Stencil1D: {
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
        case StageKind::Stencil2D:
        case StageKind::Separable2D: {
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
        case StageKind::Downsample:
        case StageKind::Upsample: {
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
                    s.extents[size_t(d)] =
                        down ? s.extents[size_t(d)] / 2 : s.extents[size_t(d)] * 2;
                }
            }
            s.ints = {n, d0, d1};
            int taps = n == 2 ? 4 : 2;
            pure_cost(s, 2 + taps, taps * access_cost(a), taps * access_tree(a));
            return accept(std::move(s));
        }
        case StageKind::Transpose: {
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
        case StageKind::Broadcast: {
            int a = choose_producer(
                [&](const StageSpec &x) { return int(x.extents.size()) < max_dims_; });
            if (a < 0) return false;
            s.producers = {a};
            s.type = st(a).type;
            s.extents = st(a).extents;
            s.extents.push_back(random_channels());
            pure_cost(s, 4, access_cost(a), access_tree(a));
            return accept(std::move(s));
        }
        case StageKind::Slice: {
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
        case StageKind::ReduceSum:
        case StageKind::ReduceMax:
        case StageKind::ArgMin: {
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
        case StageKind::TuplePair: {
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
        case StageKind::Histogram: {
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
        case StageKind::Scan: {
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
        case StageKind::ConvLayer: {
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
            if (access_tree(a) + 10 > opts_.max_tree_size) {
                drop_aux_inputs(s);
                return false;
            }
            if (!accept(s)) {
                drop_aux_inputs(s);
                return false;
            }
            return true;
        }
        case StageKind::MatMul: {
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
            if (access_tree(a) + 10 > opts_.max_tree_size) {
                drop_aux_inputs(s);
                return false;
            }
            if (!accept(s)) {
                drop_aux_inputs(s);
                return false;
            }
            return true;
        }
        case StageKind::Lookup: {
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
        case StageKind::Boundary: {
            int a = choose_producer(single);
            if (a < 0) return false;
            s.producers = {a};
            s.type = st(a).type;
            s.extents = st(a).extents;
            s.ints = {int(rng_.uniform(0, int(BoundaryKind::Count) - 1))};
            pure_cost(s, 4, access_cost(a), access_tree(a));
            return accept(std::move(s));
        }
        case StageKind::FanIn: {
            int a = choose_producer(any);
            if (a < 0) return false;
            size_t nd = st(a).extents.size();
            s.producers = {a};
            int want = int(rng_.uniform(2, 3));
            for (int i = 1; i < want; i++) {
                int b =
                    choose_producer([&](const StageSpec &x) { return x.extents.size() == nd; }, a);
                if (b >= 0 &&
                    std::find(s.producers.begin(), s.producers.end(), b) == s.producers.end()) {
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
        }
        return false;
    }

    /** Undo weights/table inputs created for a rejected candidate (always the newest). */
    void drop_aux_inputs(const StageSpec &s) {
        if (!s.inputs.empty() && s.inputs.back() == int(spec_.inputs.size()) - 1) {
            spec_.inputs.pop_back();
        }
    }

    // ---- outputs -----------------------------------------------------------------------

    void choose_outputs() {
        int n = int(spec_.stages.size());
        std::vector<bool> live(size_t(n), true);
        auto consumers = [&](int i) {
            int c = 0;
            for (int j = i + 1; j < n; j++) {
                if (!live[size_t(j)]) continue;
                for (int p : st(j).producers)
                    c += p == i;
            }
            return c;
        };
        int max_outputs = std::max(1, std::min(3, opts_.max_outputs));
        for (;;) {
            std::vector<int> sinks;
            for (int i = 0; i < n; i++) {
                if (live[size_t(i)] && consumers(i) == 0) sinks.push_back(i);
            }
            // Drop, in this order: Tuple sinks, input-boundary sinks (when others exist),
            // then the oldest sinks beyond max_outputs.
            int victim = -1;
            for (int i : sinks) {
                if (st(i).tuple_size > 1) {
                    victim = i;
                    break;
                }
            }
            if (victim < 0 && int(sinks.size()) > 1) {
                for (int i : sinks) {
                    if (st(i).kind == StageKind::InputBoundary) {
                        victim = i;
                        break;
                    }
                }
            }
            if (victim < 0 && int(sinks.size()) > max_outputs) victim = sinks.front();
            if (victim < 0) {
                spec_.outputs = sinks;
                break;
            }
            live[size_t(victim)] = false;
        }
        compact(live);
        spec_.estimated_work = 0;
        for (int o : spec_.outputs)
            spec_.estimated_work += st(o).root_cost;
    }

    /** Removes dead stages and unused inputs/scalars; renumbers and renames. */
    void compact(const std::vector<bool> &live) {
        std::vector<int> stage_map(spec_.stages.size(), -1);
        std::vector<StageSpec> stages;
        std::vector<bool> input_used(spec_.inputs.size(), false),
            scalar_used(spec_.scalars.size(), false);
        for (size_t i = 0; i < spec_.stages.size(); i++) {
            if (!live[i]) continue;
            stage_map[i] = int(stages.size());
            stages.push_back(spec_.stages[i]);
            for (int in : spec_.stages[i].inputs)
                input_used[size_t(in)] = true;
            for (int p : spec_.stages[i].scalars)
                scalar_used[size_t(p)] = true;
        }
        std::vector<int> input_map(spec_.inputs.size(), -1), scalar_map(spec_.scalars.size(), -1);
        std::vector<InputSpec> inputs;
        std::vector<ScalarSpec> scalars;
        for (size_t i = 0; i < spec_.inputs.size(); i++) {
            if (!input_used[i]) continue;
            input_map[i] = int(inputs.size());
            InputSpec in = spec_.inputs[i];
            in.name = "in" + std::to_string(inputs.size()) +
                      (in.role == InputRole::Weights ? "_weights"
                       : in.role == InputRole::Table ? "_table"
                                                     : "");
            inputs.push_back(in);
        }
        for (size_t i = 0; i < spec_.scalars.size(); i++) {
            if (!scalar_used[i]) continue;
            scalar_map[i] = int(scalars.size());
            ScalarSpec p = spec_.scalars[i];
            p.name = "p" + std::to_string(scalars.size()) + p.name.substr(p.name.find('_'));
            scalars.push_back(p);
        }
        for (size_t i = 0; i < stages.size(); i++) {
            StageSpec &s = stages[i];
            for (int &p : s.producers)
                p = stage_map[size_t(p)];
            for (int &p : s.inputs)
                p = input_map[size_t(p)];
            for (int &p : s.scalars)
                p = scalar_map[size_t(p)];
            s.name = "s" + std::to_string(i) + "_" + kind_name(s.kind);
        }
        for (int &o : spec_.outputs)
            o = stage_map[size_t(o)];
        spec_.stages = std::move(stages);
        spec_.inputs = std::move(inputs);
        spec_.scalars = std::move(scalars);
    }
};

} // namespace

PipelineSpec plan_random_pipeline(uint64_t seed, const RandomPipelineOptions &options) {
    Planner planner(seed, options);
    return planner.run();
}

} // namespace random_pipelines
} // namespace sextant
