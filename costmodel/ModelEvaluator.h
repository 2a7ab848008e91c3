// ModelEvaluator: the StateEvaluator the plugin uses — featurizes the stages a candidate
// changed (its new Func and that Func's consumers; everything else is reused from the parent)
// into one FeatureBatch per call and scores it with one CostModel call.
#pragma once

#include "costmodel/CostModel.h"
#include "search/State.h"

namespace sextant {

class ModelEvaluator : public StateEvaluator {
public:
    ModelEvaluator(const PipelineDag &dag, CostModel &model);
    void evaluate(const std::vector<State *> &states) override;
    const Featurizer &featurizer() const { return featurizer_; }

    /** Time spent so far (seconds) and stage rows featurized. */
    struct Timing {
        double featurize_seconds = 0;
        double predict_seconds = 0;
        int64_t rows = 0;
        int64_t states = 0;
    };
    const Timing &timing() const { return timing_; }

private:
    const PipelineDag &dag_;
    CostModel &model_;
    Featurizer featurizer_;
    FeatureBatch batch_;
    std::vector<std::pair<int, int>> row_func_; // (state, func) of each row
    Timing timing_;
};

} // namespace sextant
