// TrainingData: one measured schedule of one pipeline (a TrainingSample), its JSON-lines file
// format, and the helpers the trainer needs (batching samples for a CostModel, the held-out
// split by pipeline). Plain data: no Torch, no SQLite. The SampleStore converts its records to
// TrainingSamples; until it exists, data is fed as JSON lines (see docs/COSTMODEL.md).
#pragma once

#include "costmodel/CostModel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sextant {

/** One schedule of one pipeline and its measured runtime. Row i of the schedule is one stage
 * (one non-inlined Func stage); algorithm[i] is that stage's algorithm feature vector
 * (num_algorithm_features() counts) and schedule[i] its schedule features. */
struct TrainingSample {
    /** Pipeline identity (e.g. "random:seed=17:v3" or a user generator + args). Samples with
     * the same id are ranked against each other. */
    std::string pipeline;
    std::vector<std::vector<float>> algorithm;
    std::vector<ScheduleRow> schedule;
    /** Measured seconds per pipeline run (e.g. the minimum over repeats); > 0. */
    double runtime_seconds = 0;
    /** The schedule's allocator estimate (estimate_allocator): page faults per run, all of
     * them and those of buffers inside compute_at nests. The model's prediction for the
     * sample is its stages' sum plus CostModel::allocator_cost of these, as in the search.
     * JSON field "allocator": [page_faults, page_faults_nests]; files written before it
     * existed read as 0 faults. */
    double page_faults = 0;
    double page_faults_nests = 0;
    AllocatorEstimate allocator() const;
    /** Which search made the schedule ("beam", "learned:beam", "dropout:35:2", ...; JSON
     * field "source", optional): offline checks pick out the pairs a judge compares, such as
     * the two models' beam picks of one pipeline. Not a model input. */
    std::string source;
    /** 0: the whole schedule. k > 0: the search's state after the first k Funcs of its
     * decision order (SearchSpace::order) were decided, the rest undecided, labelled with the
     * whole schedule's runtime (JSON field "prefix", optional). The trainer ranks such
     * samples only against the same pipeline's prefixes of the same k, by the runtime of the
     * schedules they lead to: what the beam compares at its k-th step. Never validated. */
    int prefix_funcs = 0;
};

/** Builds the rows of candidate `state` of `batch` into a sample. */
TrainingSample make_training_sample(const std::string &pipeline, const FeatureBatch &batch,
                                    int state, double runtime_seconds);

/** A FeatureBatch over several samples (candidate i = samples[i]) with its own algorithm
 * table. Not copyable: `batch.algorithm` points into `table`. */
struct SampleBatch {
    std::vector<std::vector<float>> table;
    FeatureBatch batch;
    SampleBatch() = default;
    SampleBatch(const SampleBatch &) = delete;
    SampleBatch &operator=(const SampleBatch &) = delete;
};
void build_sample_batch(const std::vector<const TrainingSample *> &samples, SampleBatch &out);

/** Predicted seconds per sample: one CostModel::predict call over all of them. */
std::vector<double> predict_samples(CostModel &model,
                                    const std::vector<const TrainingSample *> &samples);

/** JSON lines, one sample per line:
 * {"schema_version":1,"pipeline":"...","runtime_seconds":1e-3,
 *  "algorithm":[[...],...],"schedule":[[...],...]}
 * read_samples throws UserError naming the file and line for a malformed line, a schema
 * version other than kFeatureSchemaVersion or wrongly sized rows. */
std::vector<TrainingSample> read_samples_jsonl(const std::string &path);
void write_samples_jsonl(const std::string &path, const std::vector<TrainingSample> &samples);
/** Appends one sample as a line (for incremental writers). */
std::string sample_to_json_line(const TrainingSample &s);

/** Stable 64-bit FNV-1a hash (identical on every platform and run). */
uint64_t stable_hash(const std::string &s);
/** True if `pipeline` belongs to the held-out validation set: (stable_hash % 100 - offset) mod
 * 100 < percent. Offsets 0, P, 2P, ... give disjoint folds for cross-validation. */
bool is_validation_pipeline(const std::string &pipeline, int validation_percent, int offset = 0);
/** True if `pipeline` belongs to the first `percent` of the training pipelines, by a second hash
 * independent of the validation one: the sets grow with `percent` (25 within 50 within 100)
 * while the held-out set stays the same, which is what a learning curve compares. */
bool in_training_fraction(const std::string &pipeline, int percent);

} // namespace sextant
