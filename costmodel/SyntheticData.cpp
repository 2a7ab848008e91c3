#include "SyntheticData.h"

#include "featurizer/Featurizer.h"

#include "costmodel/CostTerms.h"

#include <algorithm>
#include <cmath>

namespace sextant {

namespace {

double uniform(std::mt19937_64 &rng, double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
}
int uniform_int(std::mt19937_64 &rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}
bool coin(std::mt19937_64 &rng, double p) {
    return uniform(rng, 0, 1) < p;
}

/** Number of op-histogram features (the first block of the algorithm schema). */
int num_op_features() {
    return kNumOpKinds * kNumTypeClasses;
}

} // namespace

std::vector<float> synthetic_algorithm_row(std::mt19937_64 &rng) {
    std::vector<float> v(size_t(num_algorithm_features()), 0.0f);
    int ops = num_op_features();
    int nonzero = uniform_int(rng, 3, 10);
    for (int i = 0; i < nonzero; i++)
        v[size_t(uniform_int(rng, 0, ops - 1))] += float(uniform_int(rng, 1, 6));
    int accesses = uniform_int(rng, 1, 6);
    for (int i = 0; i < accesses; i++)
        v[size_t(uniform_int(rng, ops, int(v.size()) - 3))] += float(uniform_int(rng, 1, 3));
    if (coin(rng, 0.2)) v[v.size() - 2] = 1;                             // data-dependent loads
    if (coin(rng, 0.3)) v[v.size() - 1] = float(uniform_int(rng, 1, 2)); // reduction loops
    return v;
}

ScheduleRow synthetic_schedule_row(std::mt19937_64 &rng, double min_points, double ops_per_point,
                                   double loads_per_point, int parallelism, double llc_bytes) {
    using F = ScheduleFeature;
    ScheduleRow r{};
    auto set = [&](F f, double v) { r[size_t(f)] = v; };
    const double P = std::max(1, parallelism);
    double recompute = coin(rng, 0.5) ? 1.0 : 1.0 + std::exp(uniform(rng, -2, 1.5));
    double total = std::round(min_points * recompute);
    double realizations =
        std::round(std::pow(10.0, uniform(rng, 0, std::min(4.0, std::log10(total) - 1))));
    realizations = std::max(1.0, realizations);
    double per = std::max(1.0, std::round(total / realizations));
    total = per * realizations;
    set(F::realizations, realizations);
    set(F::points_per_realization, per);
    set(F::total_points, total);
    set(F::min_points, min_points);
    set(F::recompute_ratio, total / min_points);
    set(F::ops_per_point, ops_per_point);
    set(F::total_ops, total * ops_per_point);
    const int widths[] = {1, 4, 8, 16};
    double vw = widths[uniform_int(rng, 0, 3)];
    double waste = vw > 1 ? uniform(rng, 0, 0.3) : 0;
    set(F::vector_width, vw);
    set(F::vector_points, vw > 1 ? total : 0);
    set(F::scalar_points, vw > 1 ? 0 : total);
    set(F::num_vectors, vw > 1 ? total / vw : 0);
    set(F::vector_tail_waste, waste);
    set(F::unroll, double(1 << uniform_int(rng, 0, 2)));
    double inner = std::min(per, std::round(std::pow(2.0, uniform(rng, 2, 9))));
    set(F::innermost_extent, inner);
    set(F::innermost_pure_extent, inner);
    set(F::inner_loop_iterations, total / inner);
    bool parallel = coin(rng, 0.6);
    bool inside = !parallel && coin(rng, 0.3);
    double tasks = parallel ? std::round(std::pow(2.0, uniform(rng, 1, 9))) : 1;
    set(F::parallel_tasks, tasks);
    set(F::inside_parallel, inside ? 1 : 0);
    double launches = parallel ? std::max(1.0, std::round(realizations / std::max(1.0, tasks))) : 0;
    set(F::parallel_launches, launches);
    double idle = parallel ? 1.0 - tasks / (std::ceil(tasks / P) * P) : (inside ? 0 : (P - 1) / P);
    set(F::idle_core_fraction, idle);
    set(F::false_sharing, parallel && coin(rng, 0.1) ? 1 : 0);
    double bpp = double(1 << uniform_int(rng, 0, 3));
    set(F::bytes_per_point, bpp);
    set(F::allocation_bytes, per * bpp);
    set(F::num_allocations, realizations);
    set(F::bytes_written, total * bpp);
    set(F::loads_per_point, loads_per_point);
    double dense_share = uniform(rng, 0.3, 1.0), strided_share = uniform(rng, 0, 1 - dense_share);
    set(F::dense_loads_per_vector, loads_per_point * dense_share);
    set(F::strided_loads_per_vector, loads_per_point * strided_share);
    set(F::broadcast_loads_per_vector, loads_per_point * (1 - dense_share - strided_share));
    double read_real = per * loads_per_point * bpp * uniform(rng, 0.3, 1.2);
    double total_read = read_real * realizations;
    double local_share = uniform(rng, 0, 0.8);
    set(F::bytes_read_per_realization, read_real);
    set(F::total_bytes_read, total_read);
    set(F::bytes_read_local, total_read * local_share);
    set(F::bytes_read_root, total_read * (1 - local_share));
    double root_bytes = min_points * loads_per_point * bpp;
    set(F::root_producer_bytes, root_bytes);
    double ws_real = read_real + per * bpp;
    set(F::working_set_inner, std::min(ws_real, inner * loads_per_point * bpp * 4));
    set(F::working_set_realization, ws_real);
    double root_read = total_read * (1 - local_share);
    set(F::dram_bytes, ws_real < llc_bytes ? std::min(root_read, root_bytes) : root_read);
    double alloc = per * bpp;
    // As the featurizer: a buffer in a nest whose heap passes the trim threshold (here its
    // siblings hold a random multiple of it) re-faults its share; over the mmap limit, all.
    double faults = 0;
    if (alloc > kMmapMaxBytes) {
        faults = std::ceil(alloc / kPageBytes) * realizations;
    } else if (alloc > kStackAllocationBytes && realizations > 1) {
        double group = alloc * uniform(rng, 1, 4);
        if (group > kTrimThresholdBytes)
            faults = realizations * alloc / kPageBytes * (group - kTrimThresholdBytes) / group;
    }
    set(F::page_faults, faults);
    return r;
}

double synthetic_stage_seconds(const std::vector<float> &algorithm, const ScheduleRow &schedule,
                               int parallelism, double llc_bytes) {
    // Fixed departures from the analytical coefficients ...
    static const double base[kNumCostTerms] = {2.0, 0.6, 1.5, 4.0, 0.5, 1.0, 3.0, 0.7,
                                               1.0, 2.0, 0.4, 1.5, 1.0, 2.0, 0.5};
    // ... and a smooth dependence on two summaries of the algorithm: arithmetic intensity
    // (op counts) and memory access count (access features).
    double ops = 0, acc = 0;
    const int nops = kNumOpKinds * kNumTypeClasses;
    for (size_t i = 0; i < algorithm.size(); i++)
        (int(i) < nops ? ops : acc) += algorithm[i];
    double heavy = std::tanh((std::log1p(ops) - 2.5) * 1.5);  // in (-1, 1)
    double memory = std::tanh((std::log1p(acc) - 1.5) * 1.5); // in (-1, 1)
    const auto &c = AnalyticalModel::coefficients();
    TermRow t = cost_terms(schedule, parallelism, llc_bytes);
    double s = 0;
    for (int k = 0; k < kNumCostTerms; k++) {
        double mod = 1;
        if (k <= int(CostTerm::scalar_ops))
            mod = std::exp(0.8 * heavy);
        else if (k <= int(CostTerm::store_bytes))
            mod = std::exp(0.8 * memory);
        s += c[size_t(k)] * base[k] * mod * t[size_t(k)];
    }
    return s;
}

std::vector<TrainingSample> synthetic_dataset(const SyntheticOptions &o) {
    std::mt19937_64 rng(o.seed);
    std::vector<TrainingSample> out;
    for (int p = 0; p < o.pipelines; p++) {
        int stages = uniform_int(rng, o.min_stages, std::max(o.min_stages, o.max_stages));
        std::vector<std::vector<float>> alg;
        std::vector<double> points, ops, loads;
        for (int s = 0; s < stages; s++) {
            alg.push_back(synthetic_algorithm_row(rng));
            double op_count = 0, acc_count = 0;
            const int nops = kNumOpKinds * kNumTypeClasses;
            for (size_t i = 0; i < alg.back().size(); i++)
                (int(i) < nops ? op_count : acc_count) += alg.back()[i];
            points.push_back(std::round(std::pow(10.0, uniform(rng, 4, 7))));
            ops.push_back(std::max(1.0, op_count));
            loads.push_back(std::max(1.0, acc_count));
        }
        for (int k = 0; k < o.schedules_per_pipeline; k++) {
            TrainingSample smp;
            smp.pipeline = "synthetic-" + std::to_string(p);
            double secs = 0;
            for (int s = 0; s < stages; s++) {
                ScheduleRow row =
                    synthetic_schedule_row(rng, points[size_t(s)], ops[size_t(s)], loads[size_t(s)],
                                           o.parallelism, o.llc_bytes);
                secs += synthetic_stage_seconds(alg[size_t(s)], row, o.parallelism, o.llc_bytes);
                smp.algorithm.push_back(alg[size_t(s)]);
                smp.schedule.push_back(row);
            }
            if (o.noise > 0) secs *= std::exp(std::normal_distribution<double>(0, o.noise)(rng));
            smp.runtime_seconds = std::max(secs, 1e-12);
            out.push_back(std::move(smp));
        }
    }
    return out;
}

} // namespace sextant
