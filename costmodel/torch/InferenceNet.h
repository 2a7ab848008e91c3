// InferenceNet: the learned cost net's forward pass (docs/COSTMODEL.md, "Architecture") in
// plain C++, float64, for TorchCostModel::predict_stages. Holds a copy of the parameters taken
// when it is made, and caches per algorithm-table entry the algorithm side of the net (the
// embedding pushed through the hidden layer), so a call costs only the schedule side per row.
// It is not the training path (that stays in Torch, with autograd) and includes no Torch.
// Header-only: it is used by TorchModel.cpp and by the tests.
#pragma once

#include "costmodel/CostModel.h"
#include "costmodel/CostTerms.h"
#include "featurizer/Featurizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace sextant {

/** The net's sizes and parameters, row-major float64, named as in the weights file. */
struct InferenceNetParams {
    int A = 0, S = 0, K = 0;   // algorithm features, schedule features, cost terms
    int Ea = 0, Es = 0, H = 0; // embedding and hidden widths
    /** softplus(algorithm_embedding.weight_raw): the effective, non-negative A x Ea weights. */
    std::vector<double> alg_w, alg_b;
    std::vector<double> sched_w, sched_b; // S x Es, Es
    std::vector<double> hid_w, hid_b;     // (Ea + Es) x H, H
    std::vector<double> out_w, out_b;     // H x K, K
    std::vector<double> sched_mean, sched_std, term_scale;
    /** Machine the cost terms are computed for (set from the TorchModelConfig). */
    int parallelism = kDefaultModelParallelism;
    double llc_bytes = 0;
    /** TorchModelConfig::multiplier_range: m = R^tanh(z) for R > 0, else softplus(z) / ln 2. */
    double multiplier_range = 0;
};

class InferenceNet {
public:
    explicit InferenceNet(InferenceNetParams p)
        : p_(std::move(p)),
          log_range_(p_.multiplier_range > 0 ? std::log(p_.multiplier_range) : 0.0) {}

    /** Predicted seconds of each row of `batch` into `out` (resized to batch.size()).
     * Throws std::logic_error for a missing table, a stage id outside it or a table row of
     * the wrong width. Each row's value depends only on that row and its table entry, so a
     * batch predicts bit-identically to its rows one at a time. */
    void predict(const FeatureBatch &batch, std::vector<double> &out) {
        const size_t N = batch.size();
        out.resize(N);
        if (N == 0) return;
        if (!batch.algorithm)
            throw std::logic_error("TorchCostModel: FeatureBatch has no algorithm table");
        prepare_table(batch);
        const int S = p_.S, K = p_.K, Es = p_.Es, H = p_.H, Ea = p_.Ea;
        const double *sw = p_.sched_w.data(), *sb = p_.sched_b.data();
        const double *hw = p_.hid_w.data() + size_t(Ea) * size_t(H), *hb = p_.hid_b.data();
        const double *ow = p_.out_w.data(), *ob = p_.out_b.data();
        const double *mean = p_.sched_mean.data(), *sd = p_.sched_std.data();
        const double *scale = p_.term_scale.data();
        x_.resize(size_t(S));
        e_.resize(size_t(Es));
        h_.resize(size_t(H));
        z_.resize(size_t(K));
        double *x = x_.data(), *e = e_.data(), *h = h_.data(), *z = z_.data();
        for (size_t r = 0; r < N; r++) {
            const ScheduleRow &row = batch.schedule[r];
            // Schedule embedding: e = relu(x @ W_s + b_s), x normalized log1p features.
            for (int i = 0; i < S; i++)
                x[i] = (log1p_pos(row[size_t(i)]) - mean[i]) / sd[i];
            std::fill(e, e + Es, 0.0);
            accumulate(x, S, sw, Es, e);
            for (int j = 0; j < Es; j++)
                e[j] = relu(e[j] + sb[j]);
            // Hidden: h = relu([a, e] @ W_h + b_h); the a-part comes from the stage cache.
            const double *ah = stage_hidden_.data() + size_t(batch.stage_ids[r]) * size_t(H);
            std::copy(ah, ah + H, h);
            accumulate(e, Es, hw, H, h);
            for (int j = 0; j < H; j++)
                h[j] = relu(h[j] + hb[j]);
            // Output: multipliers m(h @ W_o + b_o) over the scaled cost terms.
            std::fill(z, z + K, 0.0);
            accumulate(h, H, ow, K, z);
            const TermRow terms = cost_terms(row, p_.parallelism, p_.llc_bytes);
            double secs = 0;
            for (int k = 0; k < K; k++) {
                const double t = terms[size_t(k)] * scale[k], zk = z[k] + ob[k];
                // A zero term adds exactly 0 for any finite multiplier: skip it.
                if (t == 0 && std::isfinite(zk)) continue;
                secs += multiplier(zk) * t;
            }
            out[r] = secs;
        }
    }

    /** How many table entries have had their algorithm side computed so far (for tests). */
    int64_t stage_computations() const { return stage_computations_; }

    /** The input transform of every feature, here and in training (TorchModel.cpp). */
    static double log1p_pos(double v) { return v > 0 ? std::log1p(v) : 0.0; }

private:
    static constexpr double kLn2 = 0.69314718055994530942;

    /** y[j] += sum_i x[i] * W[i * n + j] for i in [0, m), j in [0, n), each y[j] summed in
     * increasing i (the order of a plain matmul). Outputs go in blocks of 8, then 4, then 1,
     * so a block's sums stay in registers; zero inputs (relu's) are skipped, which is exact. */
    static void accumulate(const double *x, int m, const double *W, int n, double *y) {
        int j = 0;
        for (; j + 8 <= n; j += 8)
            accumulate_block<8>(x, m, W, n, y + j, j);
        for (; j + 4 <= n; j += 4)
            accumulate_block<4>(x, m, W, n, y + j, j);
        for (; j < n; j++)
            accumulate_block<1>(x, m, W, n, y + j, j);
    }
    template <int B>
    static void accumulate_block(const double *x, int m, const double *W, int n, double *y,
                                 int j0) {
        double acc[B];
        for (int l = 0; l < B; l++)
            acc[l] = y[l];
        for (int i = 0; i < m; i++) {
            const double xi = x[i];
            if (xi == 0) continue;
            const double *w = W + size_t(i) * size_t(n) + size_t(j0);
            for (int l = 0; l < B; l++)
                acc[l] += xi * w[l];
        }
        for (int l = 0; l < B; l++)
            y[l] = acc[l];
    }
    static double relu(double v) { return v > 0 ? v : 0.0; }
    /** A term's multiplier from its output z, as TorchCostModel's forward computes it. */
    double multiplier(double z) const {
        if (p_.multiplier_range > 0) return std::exp(log_range_ * std::tanh(z));
        return softplus(z) / kLn2;
    }

    /** torch::softplus with beta 1, threshold 20. */
    static double softplus(double v) { return v > 20 ? v : std::log1p(std::exp(v)); }

    /** Validates the batch's stage ids and makes the cache hold every entry they use. A
     * cached entry is reused only while its table row is bit-identical to the one it was
     * computed from, so a table that changes in place or a new table at the same address is
     * never served stale values. */
    void prepare_table(const FeatureBatch &batch) {
        const auto &table = *batch.algorithm;
        const size_t T = table.size();
        if (&table != table_ || T != table_rows_.size()) {
            table_ = &table;
            table_rows_.assign(T, {});
            computed_.assign(T, 0);
            checked_.assign(T, 0);
            stage_hidden_.assign(T * size_t(p_.H), 0.0);
        }
        call_++;
        for (size_t r = 0; r < batch.size(); r++) {
            const int id = batch.stage_ids[r];
            if (id < 0 || size_t(id) >= T)
                throw std::logic_error("TorchCostModel: row " + std::to_string(r) +
                                       " has stage id " + std::to_string(id) +
                                       " outside the algorithm table");
            if (checked_[size_t(id)] == call_) continue;
            checked_[size_t(id)] = call_;
            const std::vector<float> &row = table[size_t(id)];
            if (row.size() != size_t(p_.A))
                throw std::logic_error("TorchCostModel: algorithm row " + std::to_string(id) +
                                       " has " + std::to_string(row.size()) +
                                       " features, expected " + std::to_string(p_.A));
            std::vector<float> &seen = table_rows_[size_t(id)];
            if (computed_[size_t(id)] &&
                std::memcmp(seen.data(), row.data(), row.size() * sizeof(float)) == 0)
                continue;
            compute_stage(row, stage_hidden_.data() + size_t(id) * size_t(p_.H));
            seen = row;
            computed_[size_t(id)] = 1;
        }
    }

    /** out[H] = a @ W_h[:Ea] with a = relu(log1p(max(0, row)) @ softplus(W_a) + b_a); the
     * hidden bias is added per row, after the schedule side. */
    void compute_stage(const std::vector<float> &row, double *out) {
        const int A = p_.A, Ea = p_.Ea, H = p_.H;
        std::vector<double> a(size_t(Ea), 0.0);
        for (int i = 0; i < A; i++) {
            const double v = log1p_pos(double(row[size_t(i)]));
            const double *w = p_.alg_w.data() + size_t(i) * size_t(Ea);
            for (int j = 0; j < Ea; j++)
                a[size_t(j)] += v * w[j];
        }
        for (int j = 0; j < Ea; j++)
            a[size_t(j)] = relu(a[size_t(j)] + p_.alg_b[size_t(j)]);
        std::fill(out, out + H, 0.0);
        for (int i = 0; i < Ea; i++) {
            const double *w = p_.hid_w.data() + size_t(i) * size_t(H);
            for (int j = 0; j < H; j++)
                out[j] += a[size_t(i)] * w[j];
        }
        stage_computations_++;
    }

    InferenceNetParams p_;
    double log_range_ = 0; // ln(multiplier_range), or 0 when unbounded
    // Cache over the table last seen (by address): per entry, the row it was computed from,
    // whether it is computed, the call that last checked it, and its hidden-layer share.
    const void *table_ = nullptr;
    std::vector<std::vector<float>> table_rows_;
    std::vector<char> computed_;
    std::vector<uint64_t> checked_;
    std::vector<double> stage_hidden_;
    uint64_t call_ = 0;
    int64_t stage_computations_ = 0;
    // Per-row scratch, kept across calls.
    std::vector<double> x_, e_, h_, z_;
};

} // namespace sextant
