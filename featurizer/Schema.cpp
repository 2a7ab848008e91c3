#include "Schema.h"

#include "dag/PipelineDag.h"

#include <algorithm>
#include <sstream>

namespace sextant {

namespace {

const char *pattern_name(int p) {
    static const char *n[kNumAccessPatterns] = {"pointwise", "transpose", "broadcast", "slice",
                                                "other"};
    return n[p];
}

const char *source_name(int s) {
    static const char *n[kNumAccessSources] = {"func", "self", "input", "store"};
    return n[s];
}

std::vector<FeatureInfo> make_algorithm_schema() {
    std::vector<FeatureInfo> v;
    for (int k = 0; k < kNumOpKinds; k++) {
        for (int t = 0; t < kNumTypeClasses; t++) {
            v.push_back(
                {std::string("op.") + op_kind_name(OpKind(k)) + "." + type_class_name(TypeClass(t)),
                 "ops",
                 std::string("Count of ") + op_kind_name(OpKind(k)) + " operations of type " +
                     type_class_name(TypeClass(t)) + " in the stage's definition"});
        }
    }
    for (int p = 0; p < kNumAccessPatterns; p++) {
        for (int s = 0; s < kNumAccessSources; s++) {
            v.push_back({std::string("access.") + pattern_name(p) + "." + source_name(s), "access",
                         std::string("Accesses to ") + source_name(s) +
                             (s == int(AccessSource::Store) ? " (the stage's own store)" : "") +
                             " whose Jacobian is " + pattern_name(p)});
        }
    }
    v.push_back({"data_dependent_loads", "access",
                 "Loads whose index depends on a loaded value (lookup tables)"});
    v.push_back({"reduction_loops", "access", "Number of RVar loops of the stage"});
    return v;
}

std::vector<FeatureInfo> make_schedule_schema() {
    return {
#define X(name, group, doc) {#name, group, doc},
#include "featurizer/ScheduleFeatures.def"
#undef X
    };
}

} // namespace

const std::vector<FeatureInfo> &algorithm_schema() {
    static const std::vector<FeatureInfo> s = make_algorithm_schema();
    return s;
}

const std::vector<FeatureInfo> &schedule_schema() {
    static const std::vector<FeatureInfo> s = make_schedule_schema();
    return s;
}

int num_algorithm_features() {
    return int(algorithm_schema().size());
}

std::string schema_markdown() {
    std::ostringstream o;
    o << "# Sextant features (schema version " << kFeatureSchemaVersion << ")\n\n"
      << "Generated from `featurizer/ScheduleFeatures.def` and `featurizer/Schema.cpp` by "
         "`sextant-features --markdown`; do not edit by hand.\n\n"
      << "## Schedule features (" << schedule_schema().size() << ", per stage)\n\n"
      << "| # | name | group | meaning |\n|---|---|---|---|\n";
    int i = 0;
    for (const FeatureInfo &f : schedule_schema())
        o << "| " << i++ << " | `" << f.name << "` | " << f.group << " | " << f.doc << " |\n";
    o << "\n## Algorithm features (" << algorithm_schema().size() << ", per stage)\n\n"
      << "Op histogram: one feature per (op kind, type) pair, `op.<kind>.<type>`, for kinds ";
    for (int k = 0; k < kNumOpKinds; k++)
        o << (k ? ", " : "") << "`" << op_kind_name(OpKind(k)) << "`";
    o << " and types ";
    for (int t = 0; t < kNumTypeClasses; t++)
        o << (t ? ", " : "") << "`" << type_class_name(TypeClass(t)) << "`";
    o << ".\n\n| name | group | meaning |\n|---|---|---|\n";
    for (const FeatureInfo &f : algorithm_schema()) {
        if (f.group == "ops") continue;
        o << "| `" << f.name << "` | " << f.group << " | " << f.doc << " |\n";
    }
    return o.str();
}

AccessPattern classify_access(const Stage &s, const Load &l) {
    // Rows are producer dims, columns the stage's loops. Only unit entries count as simple.
    std::vector<int> row_loop(l.producer_dims, -1);
    std::vector<int> loop_uses(l.loop_dims, 0);
    for (int k = 0; k < l.producer_dims; k++) {
        int nonzero = 0;
        for (int i = 0; i < l.loop_dims; i++) {
            const JacobianEntry &j = l.at(k, i);
            if (!j.affine) return AccessPattern::Other;
            if (j.num == 0) continue;
            if (j.num != j.den) return AccessPattern::Other;
            nonzero++;
            row_loop[k] = i;
            loop_uses[i]++;
        }
        if (nonzero > 1) return AccessPattern::Other;
    }
    for (int u : loop_uses)
        if (u > 1) return AccessPattern::Other;
    bool zero_row = std::any_of(row_loop.begin(), row_loop.end(), [](int r) { return r < 0; });
    if (zero_row) return AccessPattern::Slice;
    int pure_loops = 0;
    for (const LoopDim &ld : s.loops)
        pure_loops += ld.func_dim >= 0;
    bool in_order = true;
    for (int k = 0; k < l.producer_dims; k++) {
        int fd = s.loops[row_loop[k]].func_dim;
        if (fd >= 0 && fd != k) in_order = false; // rows driven by RVars do not order
    }
    if (l.producer_dims < pure_loops) return AccessPattern::Broadcast;
    return in_order ? AccessPattern::Pointwise : AccessPattern::Transpose;
}

} // namespace sextant
