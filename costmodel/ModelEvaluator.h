// ModelEvaluator: the StateEvaluator the plugin uses — featurizes the stages a candidate
// changed (its new Func and that Func's consumers; everything else is reused from the parent)
// into one FeatureBatch per call and scores it with one CostModel call.
#pragma once

#include "costmodel/CostModel.h"
#include "search/State.h"

namespace sextant {

class ModelEvaluator : public StateEvaluator {
public:
    /** `check_siblings`: see check_siblings_. */
    ModelEvaluator(const PipelineDag &dag, CostModel &model, bool check_siblings = false);
    ~ModelEvaluator() override;
    void evaluate(const std::vector<State *> &states) override;
    void set_allocator_outlook(bool on) override {
        outlook_ = on;
        rep_.id = 0; // siblings scored the other way give no allocator cost to reuse
    }
    const Featurizer &featurizer() const { return featurizer_; }

    /** Time spent so far (seconds) and stage rows featurized. */
    struct Timing {
        double featurize_seconds = 0;
        double predict_seconds = 0;
        int64_t rows = 0;
        int64_t states = 0;
    };
    const Timing &timing() const { return timing_; }
    /** With check_siblings: siblings scored whole and compared, and those that differed. */
    int64_t sibling_checks() const { return sibling_checks_; }
    int64_t sibling_mismatches() const { return sibling_mismatches_; }

private:
    const PipelineDag &dag_;
    CostModel &model_;
    Featurizer featurizer_;
    FeatureBatch batch_;
    std::vector<std::pair<int, int>> row_func_; // (state, func) of each row
    void check_sibling(const State &s, size_t i, const std::vector<State *> &states);

    HeapGroups groups_; // the heap groups of the state being featurized (arrays reused)
    /** Siblings (State::siblings): the heap groups of the last state scored whole with a
     * siblings id in this call, and what a later call's siblings take from it. */
    HeapGroups rep_groups_;
    struct Rep {
        uint64_t id = 0;
        std::vector<State::FuncScore> func_scores;
        double allocator_cost = 0;
        HeapGroups groups;
    } rep_;
    std::vector<int> rep_in_;        // per state of a call: see evaluate()
    std::vector<double> alloc_cost_; // per state of a call: its allocator cost
    /** Score every sibling whole and count those whose other Funcs'
     * scores or allocator cost differ from the sibling they would have been taken from. */
    const bool check_siblings_;
    bool outlook_ = false;
    int64_t sibling_checks_ = 0, sibling_mismatches_ = 0;
    Timing timing_;
};

} // namespace sextant
