// TorchCostModel: forward pass vs a hand computation, batching, the inference cache.
#include "costmodel/CostTerms.h"
#include "costmodel/EnsembleModel.h"
#include "costmodel/SyntheticData.h"
#include "costmodel/torch/InferenceNet.h"
#include "costmodel/torch/TorchModel.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace sextant;

namespace {

TorchModelConfig tiny_config() {
    TorchModelConfig c;
    c.parallelism = 4;
    c.llc_bytes = 8.0 * 1024 * 1024;
    c.algorithm_embedding = 2;
    c.schedule_embedding = 3;
    c.hidden = 4;
    return c;
}

struct Rows {
    std::vector<std::vector<float>> table;
    FeatureBatch batch;
};

/** `states` candidates of `rows_per_state` rows over a 4-stage table. */
void make_rows(Rows &r, int states, int rows_per_state, uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int s = 0; s < 4; s++)
        r.table.push_back(synthetic_algorithm_row(rng));
    r.batch.algorithm = &r.table;
    r.batch.num_states = states;
    for (int st = 0; st < states; st++) {
        for (int k = 0; k < rows_per_state; k++) {
            r.batch.stage_ids.push_back(int(rng() % 4));
            r.batch.state_index.push_back(st);
            r.batch.schedule.push_back(
                synthetic_schedule_row(rng, 1e5 * (1 + st % 7), 6, 3, 4, 8.0 * 1024 * 1024));
        }
    }
}

double softplus(double x) {
    return x > 30 ? x : std::log1p(std::exp(x));
}
double relu(double x) {
    return x > 0 ? x : 0;
}
/** A cost term's multiplier from the output z, per the config's bound. */
double multiplier(const TorchModelConfig &c, double z) {
    if (c.multiplier_range > 0) return std::pow(c.multiplier_range, std::tanh(z));
    return softplus(z) / std::log(2.0);
}

/** The net written out with loops, from the model's own parameters. */
double reference_forward(const TorchCostModel &m, const std::vector<float> &alg,
                         const ScheduleRow &row) {
    const TorchModelConfig &c = m.config();
    const int A = num_algorithm_features(), S = kNumScheduleFeatures, K = kNumCostTerms;
    const int Ea = c.algorithm_embedding, Es = c.schedule_embedding, H = c.hidden;
    auto aw = m.parameter("algorithm_embedding.weight_raw");
    auto ab = m.parameter("algorithm_embedding.bias");
    auto sw = m.parameter("schedule_embedding.weight");
    auto sb = m.parameter("schedule_embedding.bias");
    auto hw = m.parameter("hidden.weight");
    auto hb = m.parameter("hidden.bias");
    auto ow = m.parameter("output.weight");
    auto ob = m.parameter("output.bias");
    auto mean = m.parameter("schedule_mean");
    auto sd = m.parameter("schedule_std");
    auto scale = m.parameter("term_scale");
    std::vector<double> cat;
    for (int j = 0; j < Ea; j++) {
        double v = ab[j];
        for (int i = 0; i < A; i++)
            v += std::log1p(std::max(0.0f, alg[i])) * softplus(aw[i * Ea + j]);
        cat.push_back(relu(v));
    }
    for (int j = 0; j < Es; j++) {
        double v = sb[j];
        for (int i = 0; i < S; i++)
            v += (std::log1p(std::max(0.0, row[i])) - mean[i]) / sd[i] * sw[i * Es + j];
        cat.push_back(relu(v));
    }
    std::vector<double> h(H);
    for (int j = 0; j < H; j++) {
        double v = hb[j];
        for (int i = 0; i < Ea + Es; i++)
            v += cat[i] * hw[i * H + j];
        h[j] = relu(v);
    }
    TermRow t = cost_terms(row, c.parallelism, c.llc_bytes);
    double secs = 0;
    for (int k = 0; k < K; k++) {
        double z = ob[k];
        for (int j = 0; j < H; j++)
            z += h[j] * ow[j * K + k];
        secs += multiplier(c, z) * scale[k] * t[k];
    }
    return secs;
}

} // namespace

TEST_CASE("untrained net with zero output weights equals the analytical model") {
    TorchCostModel m(tiny_config());
    m.set_parameter("output.weight", std::vector<double>(size_t(4 * kNumCostTerms), 0.0));
    Rows r;
    make_rows(r, 16, 3, 1);
    AnalyticalModel a(4, 8.0 * 1024 * 1024);
    std::vector<double> got = m.predict_stages(r.batch), want = a.predict_stages(r.batch);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); i++)
        CHECK(got[i] == Approx(want[i]).epsilon(1e-12));
}

TEST_CASE("forward pass equals a hand computation with constant weights") {
    // Every weight 0.1, biases 0, normalization identity: all multipliers are equal and
    // computable by hand: m(H * relu-hidden * 0.1), m = softplus(z) / ln 2 unbounded or
    // R^tanh(z) bounded.
    TorchModelConfig c = tiny_config();
    c.multiplier_range = GENERATE(0.0, 8.0);
    CAPTURE(c.multiplier_range);
    TorchCostModel m(c);
    for (const std::string &n : m.parameter_names()) {
        if (n == "term_scale" || n == "schedule_mean" || n == "schedule_std") continue;
        double v = n.find("bias") != std::string::npos ? 0.0 : 0.1;
        if (n == "algorithm_embedding.weight_raw")
            v = std::log(std::exp(0.1) - 1); // softplus -> 0.1
        std::vector<int64_t> shape = m.parameter_shape(n);
        size_t count = 1;
        for (int64_t d : shape)
            count *= size_t(d);
        m.set_parameter(n, std::vector<double>(count, v));
    }
    Rows r;
    make_rows(r, 2, 1, 5);
    const ScheduleRow &row = r.batch.schedule[0];
    const auto &alg = r.table[size_t(r.batch.stage_ids[0])];
    double sa = 0, ss = 0;
    for (float x : alg)
        sa += std::log1p(double(x));
    for (double x : row)
        ss += std::log1p(std::max(0.0, x));
    double ea = 0.1 * sa, es = 0.1 * ss;  // each embedding unit (all positive)
    double hid = 0.1 * (2 * ea + 3 * es); // each hidden unit
    double z = 0.1 * 4 * hid;
    double mult = c.multiplier_range > 0 ? std::pow(8.0, std::tanh(z))
                                         : std::log1p(std::exp(z)) / std::log(2.0);
    TermRow t = cost_terms(row, 4, 8.0 * 1024 * 1024);
    double want = 0;
    for (int k = 0; k < kNumCostTerms; k++)
        want += mult * AnalyticalModel::coefficients()[k] * t[k];
    CHECK(m.predict_stages(r.batch)[0] == Approx(want).epsilon(1e-9));
}

TEST_CASE("forward pass equals a loop-by-loop reference on random weights") {
    TorchModelConfig c = tiny_config();
    c.seed = 11;
    TorchCostModel m(c);
    // Move the normalization and output layer off their defaults so every path matters.
    std::vector<double> mean(kNumScheduleFeatures), sd(kNumScheduleFeatures);
    for (int i = 0; i < kNumScheduleFeatures; i++) {
        mean[i] = 0.3 * i;
        sd[i] = 1.0 + 0.1 * i;
    }
    m.set_parameter("schedule_mean", mean);
    m.set_parameter("schedule_std", sd);
    std::vector<double> ow = m.parameter("output.weight");
    for (size_t i = 0; i < ow.size(); i++)
        ow[i] = 0.2 * std::sin(double(i));
    m.set_parameter("output.weight", ow);
    Rows r;
    make_rows(r, 10, 2, 9);
    std::vector<double> got = m.predict_stages(r.batch);
    for (size_t i = 0; i < got.size(); i++) {
        double want =
            reference_forward(m, r.table[size_t(r.batch.stage_ids[i])], r.batch.schedule[i]);
        // Same math, different summation order: agree to rounding (float64, sums of ~300 terms).
        CHECK(got[i] == Approx(want).epsilon(1e-7));
    }
}

TEST_CASE("bounded multipliers keep every stage within a factor R of the analytical model") {
    // The search exploits a model's mistakes; with m = R^tanh(z) no output weights, however
    // large, can price a stage below 1/R (or above R) of its analytical cost.
    TorchModelConfig c = tiny_config();
    c.multiplier_range = 4;
    TorchCostModel m(c);
    AnalyticalModel a(4, 8.0 * 1024 * 1024);
    Rows r;
    make_rows(r, 12, 3, 21);
    for (double w : {-1e3, 1e3}) {
        std::vector<double> ow = m.parameter("output.weight");
        for (size_t i = 0; i < ow.size(); i++)
            ow[i] = w * (i % 3 == 0 ? 1 : -1);
        m.set_parameter("output.weight", ow);
        std::vector<double> got = m.predict_stages(r.batch), base = a.predict_stages(r.batch);
        for (size_t i = 0; i < got.size(); i++) {
            CHECK(got[i] >= base[i] / 4 * (1 - 1e-12));
            CHECK(got[i] <= base[i] * 4 * (1 + 1e-12));
        }
    }
    c.multiplier_range = 0.5;
    CHECK_THROWS_AS(TorchCostModel(c), std::invalid_argument);
}

TEST_CASE("a batch gives the same predictions as one row at a time") {
    auto model = make_torch_cost_model(8, 32.0 * 1024 * 1024);
    Rows r;
    make_rows(r, 64, 3, 2);
    std::vector<double> all = model->predict_stages(r.batch);
    for (size_t i = 0; i < r.batch.size(); i++) {
        FeatureBatch one;
        one.algorithm = &r.table;
        one.num_states = 1;
        one.stage_ids = {r.batch.stage_ids[i]};
        one.state_index = {0};
        one.schedule = {r.batch.schedule[i]};
        double single = model->predict_stages(one)[0];
        CHECK(std::fabs(single - all[i]) <= 1e-6 * std::fabs(all[i]));
    }
    // predict() sums a state's rows.
    std::vector<double> states = model->predict(r.batch);
    REQUIRE(states.size() == 64);
    CHECK(states[5] == Approx(all[15] + all[16] + all[17]).epsilon(1e-12));
}

TEST_CASE("predictions are positive and finite for extreme feature values") {
    auto model = make_torch_cost_model(8, 32.0 * 1024 * 1024);
    Rows r;
    make_rows(r, 4, 1, 3);
    for (double &x : r.batch.schedule[0])
        x *= 1e6;
    for (double &x : r.batch.schedule[1])
        x = 0;
    std::vector<double> p = model->predict_stages(r.batch);
    for (double v : p)
        CHECK(std::isfinite(v));
    CHECK(p[0] > 0);
    CHECK(p[1] == 0);
}

namespace {

/** tiny_config() with the normalization and output layer moved off their defaults. */
std::unique_ptr<TorchCostModel> random_model(uint64_t seed) {
    TorchModelConfig c = tiny_config();
    c.seed = seed;
    // Unbounded multipliers: these tests check the stage cache, and with tiny random inputs
    // R^tanh(z) saturates at R for some rows, hiding a changed table entry.
    c.multiplier_range = 0;
    auto m = std::make_unique<TorchCostModel>(c);
    std::vector<double> ow = m->parameter("output.weight");
    for (size_t i = 0; i < ow.size(); i++)
        ow[i] = 0.2 * std::sin(double(i + seed));
    m->set_parameter("output.weight", ow);
    // Hidden units biased on, so every input reaches the output (with a tiny net, some seeds
    // otherwise leave every hidden unit at relu's zero and the net is constant).
    m->set_parameter("hidden.bias", std::vector<double>(size_t(c.hidden), 0.5));
    return m;
}

void check_against_reference(const TorchCostModel &m, const Rows &r,
                             const std::vector<double> &got) {
    REQUIRE(got.size() == r.batch.size());
    for (size_t i = 0; i < got.size(); i++) {
        double want =
            reference_forward(m, r.table[size_t(r.batch.stage_ids[i])], r.batch.schedule[i]);
        // Same math, different summation order: agree to rounding (float64, sums of ~300 terms).
        CHECK(got[i] == Approx(want).epsilon(1e-7));
    }
}

/** The model's parameters as InferenceNet takes them. */
InferenceNetParams inference_params(const TorchCostModel &m) {
    const TorchModelConfig &c = m.config();
    InferenceNetParams p;
    p.A = num_algorithm_features();
    p.S = kNumScheduleFeatures;
    p.K = kNumCostTerms;
    p.Ea = c.algorithm_embedding;
    p.Es = c.schedule_embedding;
    p.H = c.hidden;
    p.alg_w = m.parameter("algorithm_embedding.weight_raw");
    for (double &w : p.alg_w)
        w = softplus(w);
    p.alg_b = m.parameter("algorithm_embedding.bias");
    p.sched_w = m.parameter("schedule_embedding.weight");
    p.sched_b = m.parameter("schedule_embedding.bias");
    p.hid_w = m.parameter("hidden.weight");
    p.hid_b = m.parameter("hidden.bias");
    p.out_w = m.parameter("output.weight");
    p.out_b = m.parameter("output.bias");
    p.sched_mean = m.parameter("schedule_mean");
    p.sched_std = m.parameter("schedule_std");
    p.term_scale = m.parameter("term_scale");
    p.parallelism = c.parallelism;
    p.llc_bytes = c.llc_bytes;
    p.multiplier_range = c.multiplier_range;
    return p;
}

} // namespace

TEST_CASE("a second call, served from the stage cache, predicts bit-identically") {
    auto m = random_model(21);
    Rows r;
    make_rows(r, 16, 3, 12);
    std::vector<double> first = m->predict_stages(r.batch);
    std::vector<double> second = m->predict_stages(r.batch);
    CHECK(second == first);
    check_against_reference(*m, r, second);
}

TEST_CASE("a batch predicts bit-identically to its rows one at a time") {
    auto m = random_model(22);
    Rows r;
    make_rows(r, 8, 3, 13);
    std::vector<double> all = m->predict_stages(r.batch);
    for (size_t i = 0; i < r.batch.size(); i++) {
        FeatureBatch one;
        one.algorithm = &r.table;
        one.num_states = 1;
        one.stage_ids = {r.batch.stage_ids[i]};
        one.state_index = {0};
        one.schedule = {r.batch.schedule[i]};
        CHECK(m->predict_stages(one)[0] == all[i]);
    }
}

TEST_CASE("the stage cache computes each table entry once while the table is unchanged") {
    auto m = random_model(23);
    InferenceNet net(inference_params(*m));
    Rows r;
    make_rows(r, 32, 2, 14);
    std::vector<double> out;
    net.predict(r.batch, out);
    CHECK(net.stage_computations() == 4); // 64 rows over a 4-entry table
    net.predict(r.batch, out);
    CHECK(net.stage_computations() == 4);
    check_against_reference(*m, r, out);
}

TEST_CASE("changing a table entry in place invalidates only that entry") {
    auto m = random_model(24);
    InferenceNet net(inference_params(*m));
    Rows r;
    make_rows(r, 32, 2, 15);
    std::vector<double> before, after;
    net.predict(r.batch, before);
    // Same table object, same size; every feature of entry 2 raised (the embedding's weights
    // are non-negative, so its units rise too), one zeroed.
    for (float &v : r.table[2])
        v += 5;
    r.table[2][7] = 0;
    net.predict(r.batch, after);
    CHECK(net.stage_computations() == 5);
    check_against_reference(*m, r, after);
    for (size_t i = 0; i < after.size(); i++) {
        if (r.batch.stage_ids[i] == 2)
            CHECK(after[i] != before[i]);
        else
            CHECK(after[i] == before[i]);
    }
}

TEST_CASE("another table, or the same one resized, invalidates the cache") {
    auto m = random_model(25);
    Rows r, other;
    make_rows(r, 16, 2, 16);
    make_rows(other, 16, 2, 17); // other table contents, same size
    std::vector<double> p = m->predict_stages(r.batch);
    r.batch.algorithm = &other.table;
    Rows swapped = r;
    swapped.table = other.table;
    swapped.batch.algorithm = &swapped.table;
    std::vector<double> q = m->predict_stages(r.batch);
    check_against_reference(*m, swapped, q);
    CHECK(q != p);
    // Same address, one more entry (and entry 0 replaced): a new table for the cache.
    r.batch.algorithm = &r.table;
    std::mt19937_64 rng(99);
    r.table[0] = synthetic_algorithm_row(rng);
    r.table.push_back(synthetic_algorithm_row(rng));
    r.batch.stage_ids[0] = 4;
    check_against_reference(*m, r, m->predict_stages(r.batch));
}

TEST_CASE("set_parameter after a prediction is seen by the next one") {
    auto m = random_model(26);
    Rows r;
    make_rows(r, 8, 2, 18);
    std::vector<double> p = m->predict_stages(r.batch);
    // The output bias moves every multiplier whatever the hidden layer does (a tiny random
    // net can have every hidden unit at relu's zero for some rows).
    std::vector<double> ob = m->parameter("output.bias");
    for (double &b : ob)
        b += 1.0;
    m->set_parameter("output.bias", ob);
    std::vector<double> q = m->predict_stages(r.batch);
    check_against_reference(*m, r, q);
    CHECK(q != p);
}

TEST_CASE("an ensemble predicts exp(mean + caution * std) of its members' log predictions") {
    Rows r;
    make_rows(r, 5, 3, 11);
    std::vector<std::vector<double>> each;
    std::vector<std::unique_ptr<CostModel>> members;
    for (uint64_t seed : {1, 2, 3}) {
        each.push_back(random_model(seed)->predict_stages(r.batch));
        members.push_back(random_model(seed));
    }
    EnsembleModel cautious(std::move(members), 1.5);
    std::vector<double> got = cautious.predict_stages(r.batch);
    REQUIRE(got.size() == each[0].size());
    bool members_disagree = false;
    for (size_t i = 0; i < got.size(); i++) {
        double l[3] = {std::log(each[0][i]), std::log(each[1][i]), std::log(each[2][i])};
        double mean = (l[0] + l[1] + l[2]) / 3;
        double var = ((l[0] - mean) * (l[0] - mean) + (l[1] - mean) * (l[1] - mean) +
                      (l[2] - mean) * (l[2] - mean)) /
                     3;
        CHECK(got[i] == Approx(std::exp(mean + 1.5 * std::sqrt(var))).epsilon(1e-12));
        // Cautious: never below the members' geometric mean.
        CHECK(got[i] >= std::exp(mean) * (1 - 1e-12));
        members_disagree = members_disagree || var > 1e-6;
    }
    CHECK(members_disagree);

    // Identical members: the ensemble is that member.
    std::vector<std::unique_ptr<CostModel>> same;
    same.push_back(random_model(4));
    same.push_back(random_model(4));
    std::vector<double> one = random_model(4)->predict_stages(r.batch);
    std::vector<double> two = EnsembleModel(std::move(same)).predict_stages(r.batch);
    for (size_t i = 0; i < one.size(); i++)
        CHECK(two[i] == Approx(one[i]).epsilon(1e-12));
    CHECK_THROWS(EnsembleModel({}));
}
