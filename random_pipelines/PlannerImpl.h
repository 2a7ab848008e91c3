// PlannerImpl: the Planner class behind plan_random_pipeline (see Planner.h), shared by its
// source files. Internal to random_pipelines; not part of the public API.
//   Planner.cpp              construction, the main loop, inputs/scalars, producer choice,
//                            cost bookkeeping and acceptance (the cost model is described there)
//   PlannerStages.cpp        try_add (dispatch on StageKind) and the pure stage kinds
//   PlannerUpdateStages.cpp  stage kinds with update definitions (reductions, histogram,
//                            scan, conv layer, matmul)
//   PlannerOutputs.cpp       choosing the outputs and compacting the plan
#pragma once

#include "random_pipelines/Options.h"
#include "random_pipelines/PipelineSpec.h"
#include "support/Rng.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace sextant {
namespace random_pipelines {
namespace detail {

double points_of(const std::vector<int> &extents);

ElemType acc_elem_type(ElemType t);

class Planner {
public:
    Planner(uint64_t seed, const RandomPipelineOptions &opts);

    PipelineSpec run();

private:
    Rng rng_;
    RandomPipelineOptions opts_;
    PipelineSpec spec_;
    std::vector<double> weights_;
    int max_dims_ = 4;

    // ---- small helpers (Planner.cpp) ---------------------------------------------------

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

    bool is_sink(int i) const;

    ElemType random_type();

    int random_spatial_extent();

    int random_channels();

    int add_scalar(ElemType t, double value, const std::string &role);

    /** A threshold-like scalar inside the canonical range of t (Int32 or Float32 param). */
    int add_threshold(ElemType t, const std::string &role, double frac_lo = 0.2,
                      double frac_hi = 0.8);

    int new_data_input();

    int new_aux_input(InputRole role, ElemType t, std::vector<int> extents, double lo, double hi);

    void add_input_boundary(int in);

    void commit(StageSpec s);

    /** Candidate producer satisfying pred: prefers current sinks (keeps the DAG
     *  connected), otherwise any stage (fan-out). Returns -1 if none. */
    int choose_producer(const std::function<bool(const StageSpec &)> &pred, int exclude = -1);

    /** Total work if the current sinks (plus candidate) were the outputs. */
    double work_with(const StageSpec &cand) const;

    static bool remaps(StageKind k);

    /** Halide computes an update stage at the innermost loop of its consumer over the
     *  bounding box of everything that consumer reads from it. If two read paths map
     *  coordinates differently (e.g. f(x) and f(2x) via an inlined downsample), that box
     *  grows with x, so charge the whole domain of the update stage per point. */
    void account_update_paths(StageSpec &s) const;

    bool accept(StageSpec s);

    /** Pure stage: cost per point = own ops + taps * producer access cost. */
    static void pure_cost(StageSpec &s, double own, double taps_cost, double taps_tree);

    std::vector<int> weights_for(int k);

    int random_spatial_dim(const StageSpec &a, int min_extent, int exclude = -1);

    /** Undo weights/table inputs created for a rejected candidate (always the newest). */
    void drop_aux_inputs(const StageSpec &s);
    /** accept(s) unless reading `producer` makes the access tree too deep; on refusal the
     * stage's auxiliary inputs are dropped again. */
    bool accept_with_aux(StageSpec &s, int producer);

    // ---- stage kinds (PlannerStages.cpp, PlannerUpdateStages.cpp) ----------------------

    // Producer predicates shared by the stage kinds.
    static bool any(const StageSpec &) { return true; }
    static bool single(const StageSpec &s) { return s.tuple_size == 1; }

    /** Tries to add one stage of this kind (last: it would be the final stage). */
    bool try_add(StageKind kind, bool last);

    // One function per kind (or group of kinds); try_add passes a StageSpec with only
    // s.kind set. Each returns whether the stage was accepted.
    // Pure stages (PlannerStages.cpp).
    bool add_pointwise(StageSpec &s);
    bool add_cast(StageSpec &s);
    bool add_select(StageSpec &s);
    bool add_stencil_1d(StageSpec &s);
    bool add_stencil_2d(StageSpec &s, StageKind kind); // Stencil2D and Separable2D
    bool add_resample(StageSpec &s, StageKind kind);   // Downsample and Upsample
    bool add_transpose(StageSpec &s);
    bool add_broadcast(StageSpec &s);
    bool add_slice(StageSpec &s);
    bool add_tuple_pair(StageSpec &s, bool last);
    bool add_lookup(StageSpec &s);
    bool add_boundary(StageSpec &s);
    bool add_fan_in(StageSpec &s);

    // Stages with update definitions (PlannerUpdateStages.cpp).
    bool add_reduction(StageSpec &s, StageKind kind, bool last); // ReduceSum/ReduceMax/ArgMin
    bool add_histogram(StageSpec &s);
    bool add_scan(StageSpec &s);
    bool add_conv_layer(StageSpec &s);
    bool add_matmul(StageSpec &s);

    // ---- outputs (PlannerOutputs.cpp) --------------------------------------------------

    void choose_outputs();

    /** Removes dead stages and unused inputs/scalars; renumbers and renames. */
    void compact(const std::vector<bool> &live);
};

} // namespace detail
} // namespace random_pipelines
} // namespace sextant
