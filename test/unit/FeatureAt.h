// One schedule feature of a featurized row, by name: what the featurizer's tests check.
#pragma once

#include "featurizer/Featurizer.h"

namespace sextant::test {

inline double at(const ScheduleRow &r, ScheduleFeature f) {
    return r[int(f)];
}

} // namespace sextant::test
