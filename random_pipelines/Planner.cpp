// Planner: chooses the structure of a random pipeline (see Planner.h).
//
// Cost model (abstract ops, ~1 ns each unvectorised), mirroring Halide's default schedule:
// outputs are computed at root; pure stages are inlined into every consumer (so a
// consumer pays taps x producer cost); stages with update definitions are computed at
// the innermost loop of their consumer, so a consumer pays their per-point cost per
// tap, plus their fixed cost (a whole-domain recompute: histograms, scans) per tap.
// The model is conservative (it ignores CSE); it only has to bound run and compile time.
//
// The Planner class is declared in PlannerImpl.h; its stage kinds and output choice
// live in PlannerStages.cpp, PlannerUpdateStages.cpp and PlannerOutputs.cpp.
#include "random_pipelines/Planner.h"

#include "random_pipelines/PlannerImpl.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace sextant {
namespace random_pipelines {
namespace detail {

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

namespace {

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

} // namespace

Planner::Planner(uint64_t seed, const RandomPipelineOptions &opts)
    : rng_(mix64(seed ^ 0x5e97a17ull)), opts_(opts) {
    spec_.seed = seed;
    weights_ = opts.kind_weights.empty() ? default_kind_weights() : opts.kind_weights;
    weights_.resize(size_t(StageKind::Count), 0.0);
    weights_[size_t(StageKind::InputBoundary)] = 0;
    max_dims_ = std::max(1, std::min(4, opts.max_dims));
}

PipelineSpec Planner::run() {
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

// ---- small helpers -------------------------------------------------------------

bool Planner::is_sink(int i) const {
    for (size_t j = size_t(i) + 1; j < spec_.stages.size(); j++) {
        for (int p : spec_.stages[j].producers) {
            if (p == i) {
                return false;
            }
        }
    }
    return true;
}

ElemType Planner::random_type() {
    static const ElemType types[] = {ElemType::UInt8, ElemType::UInt16,  ElemType::Int16,
                                     ElemType::Int32, ElemType::Float32, ElemType::Float64};
    int i = rng_.weighted({30, 15, 12, 13, 25, 5});
    return types[i];
}

int Planner::random_spatial_extent() {
    // Log-uniform in [min_extent, max_extent].
    double lo = std::log2(double(std::max(1, opts_.min_extent)));
    double hi = std::log2(double(std::max(opts_.min_extent, opts_.max_extent)));
    double e = std::exp2(lo + (hi - lo) * rng_.unit());
    int v = int(e);
    return std::max(opts_.min_extent, std::min(opts_.max_extent, v));
}

int Planner::random_channels() {
    return int(rng_.uniform(opts_.min_channels, std::max(opts_.min_channels, opts_.max_channels)));
}

int Planner::add_scalar(ElemType t, double value, const std::string &role) {
    ScalarSpec s;
    s.type = t;
    s.value = value;
    s.name = "p" + std::to_string(spec_.scalars.size()) + "_" + role;
    spec_.scalars.push_back(s);
    return int(spec_.scalars.size()) - 1;
}

int Planner::add_threshold(ElemType t, const std::string &role, double frac_lo, double frac_hi) {
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

int Planner::new_data_input() {
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

int Planner::new_aux_input(InputRole role, ElemType t, std::vector<int> extents, double lo,
                           double hi) {
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

void Planner::add_input_boundary(int in) {
    StageSpec s;
    s.kind = StageKind::InputBoundary;
    s.type = spec_.inputs[size_t(in)].type;
    s.extents = spec_.inputs[size_t(in)].extents;
    s.inputs = {in};
    s.ints = {int(rng_.uniform(0, int(BoundaryKind::Count) - 1))};
    const BoundaryKind kind = BoundaryKind(s.ints[0]);
    if (opts_.unguarded_inputs &&
        (kind == BoundaryKind::RepeatEdge || kind == BoundaryKind::ConstantExterior ||
         kind == BoundaryKind::ClampCoords))
        s.ints.push_back(1); // read unclamped (RandomPipelineOptions::unguarded_inputs)
    s.point_cost = 4;
    s.tree_size = 4;
    s.root_cost = points_of(s.extents) * s.point_cost;
    commit(std::move(s));
}

void Planner::commit(StageSpec s) {
    s.name = "s" + std::to_string(spec_.stages.size()) + "_" + kind_name(s.kind);
    spec_.stages.push_back(std::move(s));
}

int Planner::choose_producer(const std::function<bool(const StageSpec &)> &pred, int exclude) {
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

double Planner::work_with(const StageSpec &cand) const {
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

bool Planner::remaps(StageKind k) {
    return k == StageKind::Downsample || k == StageKind::Upsample || k == StageKind::Transpose ||
           k == StageKind::Slice || k == StageKind::Broadcast || k == StageKind::ConvLayer ||
           k == StageKind::MatMul || k == StageKind::Histogram || k == StageKind::ReduceSum ||
           k == StageKind::ReduceMax || k == StageKind::ArgMin;
}

void Planner::account_update_paths(StageSpec &s) const {
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

bool Planner::accept(StageSpec s) {
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

void Planner::pure_cost(StageSpec &s, double own, double taps_cost, double taps_tree) {
    s.point_cost = own + taps_cost;
    s.tree_size = own + taps_tree;
    s.root_cost = points_of(s.extents) * s.point_cost;
}

std::vector<int> Planner::weights_for(int k) {
    std::vector<int> w(static_cast<size_t>(k), 0);
    for (int i = 0; i < k; i++) {
        w[size_t(i)] = int(rng_.uniform(-1, 4));
    }
    w[size_t(k / 2)] = int(rng_.uniform(1, 4)); // non-zero centre: norm >= 1
    return w;
}

int Planner::random_spatial_dim(const StageSpec &a, int min_extent, int exclude) {
    std::vector<int> ok;
    for (int d = 0; d < int(a.extents.size()); d++) {
        if (d != exclude && a.extents[size_t(d)] >= min_extent) {
            ok.push_back(d);
        }
    }
    return ok.empty() ? -1 : rng_.pick(ok);
}

void Planner::drop_aux_inputs(const StageSpec &s) {
    if (!s.inputs.empty() && s.inputs.back() == int(spec_.inputs.size()) - 1) {
        spec_.inputs.pop_back();
    }
}

} // namespace detail

PipelineSpec plan_random_pipeline(uint64_t seed, const RandomPipelineOptions &options) {
    detail::Planner planner(seed, options);
    return planner.run();
}

} // namespace random_pipelines
} // namespace sextant
