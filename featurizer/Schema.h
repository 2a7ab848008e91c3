// Schema: the one versioned list of features — per-stage algorithm features (what the stage
// computes) and schedule features (what a schedule makes it do). Names, groups and docs come
// from ScheduleFeatures.def and from the DAG's op/type enums; nothing else defines features.
#pragma once

#include <string>
#include <vector>

namespace sextant {

/** Bump whenever a feature's meaning, order or count changes. */
constexpr int kFeatureSchemaVersion = 8; // 6: transcendental op kind, ops weighted by cost;
                                         // 7: update accumulators promoted whatever the order
                                         // 8: page_faults models glibc's arena trim
// 5: loads through clamps count as their interior pattern

enum class ScheduleFeature : int {
#define X(name, group, doc) name,
#include "featurizer/ScheduleFeatures.def"
#undef X
    Count
};
constexpr int kNumScheduleFeatures = int(ScheduleFeature::Count);

/** Memory access patterns, classified from load Jacobians. */
enum class AccessPattern : int { Pointwise, Transpose, Broadcast, Slice, Other };
constexpr int kNumAccessPatterns = 5;
struct Stage;
struct Load;
/** Classifies a load's access pattern relative to the loading stage's loops (its Jacobian). */
AccessPattern classify_access(const Stage &s, const Load &l);
/** Where an access goes. */
enum class AccessSource : int { Func, Self, Input, Store };
constexpr int kNumAccessSources = 4;

struct FeatureInfo {
    std::string name;
    std::string group;
    std::string doc;
};

/** Op histogram (kind x type), access patterns (pattern x source x type class of 4 widths),
 * plus counts of data-dependent loads and reduction loops. */
const std::vector<FeatureInfo> &algorithm_schema();
const std::vector<FeatureInfo> &schedule_schema();
int num_algorithm_features();

/** Markdown for docs/FEATURES.md. */
std::string schema_markdown();

} // namespace sextant
