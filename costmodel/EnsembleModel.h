// EnsembleModel: several cost models (learned weights trained apart) scored as one: per stage,
// the geometric mean of the members' predictions raised by `caution` standard deviations of
// their logs. With caution, where the members disagree about a stage the ensemble believes the
// slower of their opinions: the search minimises over its model's mistakes, a schedule that
// only one member thinks fast is such a mistake, and the members' spread is how it shows. An
// ensemble weights file (costmodel/WeightsFile.h) names its members and its caution.
#pragma once

#include "costmodel/CostModel.h"

#include <memory>
#include <vector>

namespace sextant {

class EnsembleModel : public CostModel {
public:
    /** How many standard deviations of the members' log predictions a stage's prediction
     * is raised by. */
    static constexpr double kDefaultCaution = 1.0;

    /** `members` must not be empty. */
    EnsembleModel(std::vector<std::unique_ptr<CostModel>> members,
                  double caution = kDefaultCaution);

    /** Per row: exp(mean + caution * std) of the members' log predictions (population std);
     * the plain mean of their predictions where any member predicts 0 seconds. */
    std::vector<double> predict_stages(const FeatureBatch &batch) override;
    /** The dearest of the members' allocator costs (the same caution). */
    double allocator_cost(const AllocatorEstimate &e) const override;
    std::string name() const override;

private:
    std::vector<std::unique_ptr<CostModel>> members_;
    double caution_;
};

} // namespace sextant
