// Featurizer: computes per-stage algorithm features (once per DAG) and schedule features (per
// search state and stage). Pure functions of (PipelineDag, Decisions, Nests); no Halide, no
// Torch. Feature meanings are documented in ScheduleFeatures.def / docs/FEATURES.md.
#pragma once

#include "featurizer/Schema.h"
#include "plugin/dag/PipelineDag.h"
#include "plugin/search/LoopNest.h"

#include <array>
#include <vector>

namespace sextant {

using ScheduleRow = std::array<double, kNumScheduleFeatures>;

/** Rows to score: each is one stage of one candidate state. */
struct FeatureBatch {
    /** Algorithm features, one vector per stage id (see Featurizer::stage_id). Shared. */
    const std::vector<std::vector<float>> *algorithm = nullptr;
    std::vector<int> stage_ids;
    std::vector<int> state_index; // which candidate each row belongs to
    std::vector<ScheduleRow> schedule;
    int num_states = 0;
    size_t size() const { return schedule.size(); }
    void clear() {
        stage_ids.clear();
        state_index.clear();
        schedule.clear();
        num_states = 0;
    }
};

class Featurizer {
public:
    explicit Featurizer(const PipelineDag &dag);

    /** Dense index of (func, stage) over the whole DAG. */
    int stage_id(int func, int stage) const { return stage_base_[func] + stage; }
    const std::vector<std::vector<float>> &algorithm_table() const { return algorithm_; }

    /** Schedule features of one stage of a non-inlined, decided Func. */
    ScheduleRow schedule_features(const Decisions &d, const Nests &nests, int func,
                                  int stage) const;

private:
    /** Natural SIMD lanes of the Func's (narrowest) type on the target. */
    int m_native_lanes(const FuncNode &f) const;
    const PipelineDag &dag_;
    std::vector<int> stage_base_;
    std::vector<std::vector<float>> algorithm_;
};

/** Classifies a load's access pattern relative to the loading stage's loops. */
AccessPattern classify_access(const Stage &s, const Load &l);

} // namespace sextant
