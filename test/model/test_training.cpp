// Training: samples I/O, ranking metrics, learning a known runtime function, resuming.
#include "costmodel/CostTerms.h"
#include "costmodel/Metrics.h"
#include "costmodel/SyntheticData.h"
#include "costmodel/TrainingData.h"
#include "costmodel/torch/TorchModel.h"
#include "costmodel/torch/Trainer.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <unistd.h>

using namespace sextant;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir(const std::string &name) {
    fs::path dir =
        fs::temp_directory_path() / ("sextant-test-train-" + std::to_string(::getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

/** A fresh net trained on `samples` for `epochs` with 25% of the pipelines held out, in
 * temporary directory `name` (`train_percent` of the others trained on). */
TrainResult train_fresh(std::unique_ptr<TrainableCostModel> &model, const std::string &name,
                        const std::vector<TrainingSample> &samples, int epochs,
                        int train_percent = 100) {
    TrainerOptions o;
    o.epochs = epochs;
    o.progress = false;
    o.validation_percent = 25;
    o.train_percent = train_percent;
    o.out_dir = temp_dir(name).string();
    model = make_torch_cost_model(TorchModelConfig{});
    return train_cost_model(*model, samples, o);
}

} // namespace

TEST_CASE("samples round-trip through JSON lines") {
    SyntheticOptions o;
    o.pipelines = 3;
    o.schedules_per_pipeline = 2;
    std::vector<TrainingSample> s = synthetic_dataset(o);
    s[1].source = "learned:beam";
    s[2].prefix_funcs = 3;
    fs::path p = temp_dir("jsonl") / "samples.jsonl";
    write_samples_jsonl(p.string(), s);
    std::vector<TrainingSample> back = read_samples_jsonl(p.string());
    REQUIRE(back.size() == s.size());
    for (size_t i = 0; i < s.size(); i++) {
        CHECK(back[i].pipeline == s[i].pipeline);
        CHECK(back[i].source == s[i].source);
        CHECK(back[i].prefix_funcs == s[i].prefix_funcs);
        CHECK(back[i].runtime_seconds == s[i].runtime_seconds);
        CHECK(back[i].algorithm == s[i].algorithm);
        CHECK(back[i].schedule == s[i].schedule);
    }
}

TEST_CASE("a malformed samples line names the file and line") {
    fs::path p = temp_dir("badjsonl") / "samples.jsonl";
    SyntheticOptions o;
    o.pipelines = 1;
    o.schedules_per_pipeline = 1;
    std::string good = sample_to_json_line(synthetic_dataset(o)[0]);
    {
        std::ofstream f(p);
        f << good << "\n{\"schema_version\": 1, \"pipeline\": \n";
    }
    try {
        read_samples_jsonl(p.string());
        FAIL("no error");
    } catch (const UserError &e) {
        CHECK_THAT(e.what(),
                   Catch::Contains("samples.jsonl:2") && Catch::Contains("not valid JSON"));
    }
    {
        std::ofstream f(p);
        nlohmann::json j = nlohmann::json::parse(good);
        j["schema_version"] = 0;
        f << j.dump() << "\n";
    }
    CHECK_THROWS_WITH(read_samples_jsonl(p.string()),
                      Catch::Contains("samples.jsonl:1") &&
                          Catch::Contains("feature schema version 0, expected"));
}

TEST_CASE("ranking metrics of a perfect and a reversed prediction") {
    std::vector<std::string> pipe = {"a", "a", "a", "b", "b"};
    std::vector<double> meas = {1, 2, 4, 3, 1};
    RankingMetrics good = ranking_metrics(pipe, meas, meas);
    CHECK(good.pipelines == 2);
    CHECK(good.pairs == 4);
    CHECK(good.pairwise_accuracy == 1.0);
    CHECK(good.kendall_tau == Approx(1.0));
    CHECK(good.top1_regret_geomean == 1.0);
    std::vector<double> rev = {4, 2, 1, 1, 3};
    RankingMetrics bad = ranking_metrics(pipe, rev, meas);
    CHECK(bad.pairwise_accuracy == 0.0);
    CHECK(bad.kendall_tau == Approx(-1.0));
    CHECK(bad.top1_regret_geomean == Approx(std::sqrt(4.0 * 3.0)));
    CHECK(bad.top1_regret_max == 4.0);
}

TEST_CASE("training on an exact runtime function ranks held-out pipelines near-perfectly") {
    RankingLoss loss = GENERATE(RankingLoss::Pairwise, RankingLoss::Throughput);
    INFO((loss == RankingLoss::Pairwise ? "pairwise" : "throughput") << " loss");
    auto t0 = std::chrono::steady_clock::now();
    SyntheticOptions so;
    so.pipelines = 80;
    so.schedules_per_pipeline = 24;
    so.parallelism = 8;
    std::vector<TrainingSample> samples = synthetic_dataset(so);
    TorchModelConfig c;
    c.parallelism = 8;
    c.llc_bytes = so.llc_bytes;
    auto model = make_torch_cost_model(c);

    // The untrained (analytical) starting point, for reference.
    std::vector<const TrainingSample *> held;
    for (const TrainingSample &s : samples)
        if (is_validation_pipeline(s.pipeline, 20)) held.push_back(&s);
    REQUIRE(held.size() >= 5 * 24);
    std::vector<std::string> pipe;
    std::vector<double> meas;
    for (const TrainingSample *s : held) {
        pipe.push_back(s->pipeline);
        meas.push_back(s->runtime_seconds);
    }
    RankingMetrics before = ranking_metrics(pipe, predict_samples(*model, held), meas);

    TrainerOptions o;
    o.epochs = 25;
    o.validation_percent = 20;
    o.loss.ranking = loss;
    o.out_dir = temp_dir("exact").string();
    o.progress = false;
    TrainResult r = train_cost_model(*model, samples, o);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO("untrained: accuracy " << before.pairwise_accuracy << ", regret "
                                << before.top1_regret_geomean);
    INFO("validation pairwise accuracy "
         << r.validation.pairwise_accuracy << ", tau " << r.validation.kendall_tau << ", regret "
         << r.validation.top1_regret_geomean << ", " << secs << " s");
    CHECK(r.validation.pipelines >= 5);
    CHECK(r.validation.pairwise_accuracy > 0.95);
    CHECK(r.validation.pairwise_accuracy > before.pairwise_accuracy + 0.05);
    CHECK(r.validation.top1_regret_geomean < 1.1);
    CHECK(secs < 60);
    CHECK(fs::exists(fs::path(o.out_dir) / "weights.sxw"));
    CHECK(fs::exists(fs::path(o.out_dir) / "report.json"));
    nlohmann::json report =
        nlohmann::json::parse(std::ifstream(fs::path(o.out_dir) / "report.json"));
    CHECK(report["metrics"]["validation"]["pairwise_accuracy"] == r.validation.pairwise_accuracy);
    // The saved weights reproduce the trained model.
    auto loaded = load_torch_cost_model(r.weights_path, 8, so.llc_bytes);
    CHECK(predict_samples(*loaded, held) == predict_samples(*model, held));
}

TEST_CASE("a resumed run ends with the same weights as an uninterrupted one") {
    SyntheticOptions so;
    so.pipelines = 12;
    so.schedules_per_pipeline = 8;
    std::vector<TrainingSample> samples = synthetic_dataset(so);
    TrainerOptions o;
    o.epochs = 4;
    o.progress = false;
    o.out_dir = temp_dir("straight").string();
    TorchModelConfig c;
    auto straight = make_torch_cost_model(c);
    train_cost_model(*straight, samples, o);

    o.out_dir = temp_dir("resumed").string();
    o.epochs = 2;
    auto first = make_torch_cost_model(c);
    train_cost_model(*first, samples, o);
    o.epochs = 4;
    o.resume = true;
    auto second = make_torch_cost_model(c);
    train_cost_model(*second, samples, o);

    auto a = dynamic_cast<TorchCostModel *>(straight.get());
    auto b = dynamic_cast<TorchCostModel *>(second.get());
    REQUIRE(a);
    REQUIRE(b);
    // Compare the last checkpoints (the returned models hold each run's best epoch).
    auto ca = load_torch_cost_model(
        (fs::path(temp_dir("x").parent_path()) / "straight" / "checkpoint" / "model.sxw").string());
    auto cb = load_torch_cost_model((fs::path(o.out_dir) / "checkpoint" / "model.sxw").string());
    auto ta = dynamic_cast<TorchCostModel *>(ca.get()),
         tb = dynamic_cast<TorchCostModel *>(cb.get());
    for (const std::string &n : ta->parameter_names())
        CHECK(ta->parameter(n) == tb->parameter(n));
    nlohmann::json st =
        nlohmann::json::parse(std::ifstream(fs::path(o.out_dir) / "checkpoint" / "trainer.json"));
    CHECK(st["epochs_done"] == 4);
    CHECK(st["history"].size() == 4);
}

TEST_CASE("a training fraction trains on fewer pipelines and holds out the same ones") {
    std::set<std::string> quarter, half;
    for (int k = 0; k < 2000; k++) {
        const std::string id = "random:seed=" + std::to_string(k);
        if (in_training_fraction(id, 25)) quarter.insert(id);
        if (in_training_fraction(id, 50)) half.insert(id);
        CHECK(in_training_fraction(id, 100));
    }
    CHECK(quarter.size() > 400);
    CHECK(quarter.size() < 600);
    CHECK(half.size() > 900);
    CHECK(half.size() < 1100);
    for (const std::string &id : quarter)
        CHECK(half.count(id) == 1);

    SyntheticOptions so;
    so.pipelines = 40;
    so.schedules_per_pipeline = 6;
    std::vector<TrainingSample> samples = synthetic_dataset(so);
    std::unique_ptr<TrainableCostModel> all, some;
    TrainResult everything = train_fresh(all, "all-training", samples, 1);
    TrainResult fraction = train_fresh(some, "half-training", samples, 1, 50);
    CHECK(fraction.validation.samples == everything.validation.samples);
    CHECK(fraction.validation.pipelines == everything.validation.pipelines);
    CHECK(fraction.train.pipelines > 0);
    CHECK(fraction.train.pipelines < everything.train.pipelines);
}

TEST_CASE("resume without a checkpoint is a user error") {
    SyntheticOptions so;
    so.pipelines = 4;
    so.schedules_per_pipeline = 3;
    std::vector<TrainingSample> samples = synthetic_dataset(so);
    TrainerOptions o;
    o.resume = true;
    o.progress = false;
    o.out_dir = temp_dir("noresume").string();
    auto m = make_torch_cost_model(8, 32e6);
    CHECK_THROWS_WITH(train_cost_model(*m, samples, o), Catch::Contains("no checkpoint"));
}

TEST_CASE("samples carry the schedule's allocator faults") {
    SyntheticOptions o;
    o.pipelines = 1;
    o.schedules_per_pipeline = 2;
    std::vector<TrainingSample> s = synthetic_dataset(o);
    s[0].page_faults = 1200;
    s[0].page_faults_nests = 200;
    fs::path p = temp_dir("allocator") / "samples.jsonl";
    write_samples_jsonl(p.string(), s);
    std::vector<TrainingSample> back = read_samples_jsonl(p.string());
    REQUIRE(back.size() == 2);
    CHECK(back[0].page_faults == 1200);
    CHECK(back[0].page_faults_nests == 200);
    CHECK(back[1].page_faults == 0);

    // A line written before the field existed reads as no faults; a wrong one is named.
    nlohmann::json j = nlohmann::json::parse(sample_to_json_line(s[0]));
    j.erase("allocator");
    {
        std::ofstream f(p);
        f << j.dump() << "\n";
    }
    CHECK(read_samples_jsonl(p.string()).at(0).page_faults == 0);
    j["allocator"] = {10, 20};
    {
        std::ofstream f(p);
        f << j.dump() << "\n";
    }
    CHECK_THROWS_WITH(read_samples_jsonl(p.string()),
                      Catch::Contains("samples.jsonl:1") && Catch::Contains("\"allocator\""));

    // Every model's prediction for a sample is its stages' sum plus its allocator cost.
    AnalyticalModel a(8, 32e6);
    std::vector<const TrainingSample *> one = {&s[0]}, none = {&s[1]};
    TrainingSample no_faults = s[0];
    no_faults.page_faults = no_faults.page_faults_nests = 0;
    std::vector<const TrainingSample *> bare = {&no_faults};
    CHECK(predict_samples(a, one)[0] - predict_samples(a, bare)[0] ==
          Approx(1000 * kMainArenaFaultSeconds + 200 * kThreadArenaFaultSeconds));
}

TEST_CASE("training learns what a fault costs") {
    // The synthetic runtimes plus faults at 8x the hand-set main-arena price: nothing in the
    // stage features predicts the faults, so only the learned price can explain them.
    SyntheticOptions so;
    so.pipelines = 40;
    so.schedules_per_pipeline = 16;
    so.parallelism = 8;
    std::vector<TrainingSample> samples = synthetic_dataset(so);
    std::mt19937_64 rng(3);
    for (TrainingSample &s : samples) {
        s.page_faults = double(rng() % 4) * 0.5 * s.runtime_seconds / kMainArenaFaultSeconds;
        s.runtime_seconds += s.page_faults * 8 * kMainArenaFaultSeconds;
    }
    TorchModelConfig c;
    c.parallelism = 8;
    c.llc_bytes = so.llc_bytes;
    auto model = make_torch_cost_model(c);
    auto &torch_model = dynamic_cast<TorchCostModel &>(*model);
    AllocatorEstimate e;
    e.page_faults = 100;
    CHECK(model->allocator_cost(e) == Approx(allocator_seconds(e))); // untrained: hand-set
    TrainerOptions o;
    o.epochs = 20;
    o.pipelines_per_step = 2;
    o.loss.learning_rate = 1e-2; // Adam moves a parameter ~lr a step: ln 8 needs ~200 steps
    o.validation_percent = 20;
    o.out_dir = temp_dir("faults").string();
    o.progress = false;
    train_cost_model(*model, samples, o);
    double price = std::exp(torch_model.parameter("allocator.log_price")[0]);
    INFO("learned main-arena price: " << price << " x the hand-set one");
    CHECK(price > 3);
    CHECK(model->allocator_cost(e) == Approx(price * allocator_seconds(e)));
}

TEST_CASE("restricted nets train only their own parameters and keep their kind when saved") {
    SyntheticOptions so;
    so.pipelines = 12;
    so.schedules_per_pipeline = 8;
    so.parallelism = 4;
    std::vector<TrainingSample> samples = synthetic_dataset(so);
    std::vector<const TrainingSample *> batch;
    for (const TrainingSample &s : samples)
        batch.push_back(&s);
    const bool global = GENERATE(true, false);
    CAPTURE(global);
    TorchModelConfig c;
    c.parallelism = 4;
    c.llc_bytes = so.llc_bytes;
    c.global_prices = global;
    c.schedule_only = !global;
    TorchCostModel model(c);
    model.fit_normalization(batch);
    // Frozen: every parameter the kind does not train.
    std::vector<std::string> frozen = {"algorithm_embedding.weight_raw"};
    if (global)
        frozen = {"algorithm_embedding.weight_raw",
                  "algorithm_embedding.bias",
                  "schedule_embedding.weight",
                  "schedule_embedding.bias",
                  "hidden.weight",
                  "hidden.bias",
                  "output.weight"};
    std::vector<std::vector<double>> before;
    for (const std::string &n : frozen)
        before.push_back(model.parameter(n));
    const std::vector<double> bias_before = model.parameter("output.bias");
    LossOptions lo;
    lo.learning_rate = 1e-2;
    for (int step = 0; step < 20; step++)
        model.train_step(batch, lo);
    for (size_t i = 0; i < frozen.size(); i++) {
        INFO(frozen[i]);
        CHECK(model.parameter(frozen[i]) == before[i]);
    }
    CHECK(model.parameter("output.bias") != bias_before);
    SampleBatch sb;
    build_sample_batch(batch, sb);

    if (global) {
        // One multiplier per term for every row: each row's prediction is its terms priced
        // at the analytical coefficients times R^tanh(output.bias).
        const std::vector<double> b = model.parameter("output.bias");
        const auto &coeff = AnalyticalModel::coefficients();
        std::vector<double> rows = model.predict_stages(sb.batch);
        for (size_t r = 0; r < rows.size(); r += 17) {
            TermRow t = cost_terms(sb.batch.schedule[r], c.parallelism, c.llc_bytes);
            double want = 0;
            for (int k = 0; k < kNumCostTerms; k++)
                want += std::pow(c.multiplier_range, std::tanh(b[size_t(k)])) * coeff[size_t(k)] *
                        t[size_t(k)];
            CHECK(rows[r] == Approx(want).epsilon(1e-9));
        }
    }

    // The kind survives a save and load, and the loaded net predicts the same.
    fs::path file = temp_dir(global ? "global" : "schedule-only") / "w.sxw";
    model.save(file.string());
    auto loaded = load_torch_cost_model(file.string(), c.parallelism, c.llc_bytes);
    auto &lt = dynamic_cast<TorchCostModel &>(*loaded);
    CHECK(lt.config().global_prices == global);
    CHECK(lt.config().schedule_only == !global);
    CHECK(loaded->predict_stages(sb.batch) == model.predict_stages(sb.batch));
}

TEST_CASE("partial states train beside their schedules and are never validated") {
    SyntheticOptions so;
    so.pipelines = 40;
    so.schedules_per_pipeline = 5;
    std::vector<TrainingSample> whole = synthetic_dataset(so);
    // Each schedule's first row alone, as if only its first Func were decided.
    std::vector<TrainingSample> with_prefixes = whole;
    for (const TrainingSample &t : whole) {
        TrainingSample p = t;
        p.algorithm.resize(1);
        p.schedule.resize(1);
        p.prefix_funcs = 1;
        with_prefixes.push_back(p);
    }
    std::unique_ptr<TrainableCostModel> a, b;
    TrainResult plain = train_fresh(a, "whole-only", whole, 2);
    TrainResult both = train_fresh(b, "with-prefixes", with_prefixes, 2);
    // The same whole schedules are held out and counted; the partial states only train.
    CHECK(both.validation.samples == plain.validation.samples);
    CHECK(both.validation.pipelines == plain.validation.pipelines);
    CHECK(both.train.samples == plain.train.samples);
    CHECK(both.train.pipelines == plain.train.pipelines);
    // ... and they do train: the weights differ from training on whole schedules alone.
    std::vector<const TrainingSample *> ptrs;
    for (const TrainingSample &t : whole)
        ptrs.push_back(&t);
    CHECK(predict_samples(*a, ptrs) != predict_samples(*b, ptrs));
}
