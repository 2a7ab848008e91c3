// SyntheticData: made-up but internally consistent feature rows and a known "true" runtime
// function of them, for tests, the inference benchmark and smoke-testing sextant-train
// without a machine to measure on. Not a model of any real machine. No Torch.
#pragma once

#include "costmodel/TrainingData.h"

#include <cstdint>
#include <random>
#include <vector>

namespace sextant {

struct SyntheticOptions {
    int pipelines = 60;
    int schedules_per_pipeline = 24;
    int min_stages = 2;
    int max_stages = 5;
    /** Multiplicative log-normal noise on runtimes (0 = runtimes are an exact function). */
    double noise = 0;
    uint64_t seed = 7;
    int parallelism = kDefaultModelParallelism;
    double llc_bytes = kDefaultModelLlcBytes;
};

/** An algorithm feature vector (num_algorithm_features() counts) of a plausible stage. */
std::vector<float> synthetic_algorithm_row(std::mt19937_64 &rng);
/** Schedule features of one plausible schedule of a stage that computes `min_points` points
 * with `ops_per_point` ops and `loads_per_point` loads. */
ScheduleRow synthetic_schedule_row(std::mt19937_64 &rng, double min_points, double ops_per_point,
                                   double loads_per_point, int parallelism, double llc_bytes);
/** The hidden ground truth: seconds of one stage, sum_k c_k(algorithm) * term_k, where the
 * per-term coefficients differ from AnalyticalModel's by fixed factors and by a smooth
 * function of the algorithm features. */
double synthetic_stage_seconds(const std::vector<float> &algorithm, const ScheduleRow &schedule,
                               int parallelism, double llc_bytes);
/** Pipelines named "synthetic-<i>", each with a fixed set of stages and random schedules. */
std::vector<TrainingSample> synthetic_dataset(const SyntheticOptions &options);

} // namespace sextant
