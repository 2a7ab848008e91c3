// Weights file: round trip, and the errors for missing, truncated, corrupt and mismatched files.
#include "costmodel/CostTerms.h"
#include "costmodel/SyntheticData.h"
#include "costmodel/WeightsFile.h"
#include "costmodel/torch/TorchModel.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

using namespace sextant;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string &name) {
    fs::path dir = fs::temp_directory_path() / ("sextant-test-model-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

std::string read_all(const fs::path &p) {
    std::ifstream f(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void write_all(const fs::path &p, const std::string &s) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << s;
}

/** Rewrites the manifest line of a weights file with `edit` applied. */
template <typename F> void edit_manifest(const fs::path &p, F edit) {
    std::string s = read_all(p);
    size_t a = s.find('\n'), b = s.find('\n', a + 1);
    nlohmann::json m = nlohmann::json::parse(s.substr(a + 1, b - a - 1));
    edit(m);
    write_all(p, s.substr(0, a + 1) + m.dump() + s.substr(b));
}

struct Rows {
    std::vector<std::vector<float>> table;
    FeatureBatch batch;
    Rows() {
        std::mt19937_64 rng(4);
        for (int s = 0; s < 3; s++)
            table.push_back(synthetic_algorithm_row(rng));
        batch.algorithm = &table;
        batch.num_states = 20;
        for (int i = 0; i < 20; i++) {
            batch.stage_ids.push_back(i % 3);
            batch.state_index.push_back(i);
            batch.schedule.push_back(synthetic_schedule_row(rng, 3e5, 5, 2, 8, 32e6));
        }
    }
};

/** A saved model whose weights differ from a fresh one's. */
fs::path saved_model(const std::string &name, std::vector<double> *predictions = nullptr) {
    TorchModelConfig c;
    c.seed = 99;
    c.hidden = 16;
    TorchCostModel m(c);
    std::vector<double> ow = m.parameter("output.weight");
    for (size_t i = 0; i < ow.size(); i++)
        ow[i] = 0.05 * std::cos(double(i));
    m.set_parameter("output.weight", ow);
    m.set_manifest_entry("metrics", R"({"validation": {"pairwise_accuracy": 0.9}})");
    fs::path p = temp_path(name);
    m.save(p.string());
    if (predictions) {
        Rows r;
        *predictions = m.predict_stages(r.batch);
    }
    return p;
}

std::string load_error(const fs::path &p) {
    try {
        load_torch_cost_model(p.string(), 8, 32e6);
    } catch (const UserError &e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST_CASE("save then load gives identical predictions") {
    std::vector<double> before;
    fs::path p = saved_model("roundtrip.sxw", &before);
    auto m = load_torch_cost_model(p.string(), 8, 32e6);
    Rows r;
    CHECK(m->predict_stages(r.batch) == before); // bit-identical: float64 stored raw
    CHECK(nlohmann::json::parse(m->manifest_json())["hidden"] == 16);
    CHECK(nlohmann::json::parse(m->manifest_json())["metrics"]["validation"]["pairwise_accuracy"] ==
          0.9);
}

TEST_CASE("the manifest records schema, shapes and machine") {
    fs::path p = saved_model("manifest.sxw");
    std::string s = read_all(p);
    REQUIRE(s.rfind("SEXTANT-WEIGHTS\n", 0) == 0);
    size_t a = s.find('\n'), b = s.find('\n', a + 1);
    nlohmann::json m = nlohmann::json::parse(s.substr(a + 1, b - a - 1));
    CHECK(m["feature_schema_version"] == kFeatureSchemaVersion);
    CHECK(m["num_algorithm_features"] == num_algorithm_features());
    CHECK(m["num_schedule_features"] == kNumScheduleFeatures);
    CHECK(m["num_cost_terms"] == kNumCostTerms);
    CHECK(m["cost_term_machine"]["parallelism"] == 8);
    CHECK(m["tensors"].size() == 12);
    CHECK(m["payload_bytes"].get<size_t>() == s.size() - b - 1);
}

TEST_CASE("a missing weights file names the path") {
    std::string e = load_error(temp_path("does-not-exist.sxw"));
    CHECK_THAT(e, Catch::Contains("cannot open weights file") &&
                      Catch::Contains("does-not-exist.sxw"));
}

TEST_CASE("a truncated weights file is rejected") {
    fs::path p = saved_model("truncated.sxw");
    std::string s = read_all(p);
    write_all(p, s.substr(0, s.size() - 100));
    std::string e = load_error(p);
    CHECK_THAT(e, Catch::Contains("truncated or corrupt") && Catch::Contains("truncated.sxw") &&
                      Catch::Contains("bytes of tensors but the file holds"));
    write_all(p, s.substr(0, s.find('\n') + 20)); // cut inside the manifest
    CHECK_THAT(load_error(p), Catch::Contains("manifest line is incomplete"));
    write_all(p, "");
    CHECK_THAT(load_error(p), Catch::Contains("does not start with the line \"SEXTANT-WEIGHTS\""));
}

TEST_CASE("a corrupt weights file is rejected") {
    fs::path p = saved_model("corrupt.sxw");
    std::string s = read_all(p);
    std::string flipped = s;
    flipped[s.size() - 17] ^= 0x40;
    write_all(p, flipped);
    CHECK_THAT(load_error(p),
               Catch::Contains("does not match its checksum") && Catch::Contains("corrupt.sxw"));
    std::string bad_json = s;
    bad_json[s.find('\n') + 1] = '!';
    write_all(p, bad_json);
    CHECK_THAT(load_error(p), Catch::Contains("manifest is not valid JSON"));
    write_all(p, "PK\x03\x04 some zip file\n");
    CHECK_THAT(load_error(p), Catch::Contains("does not start with"));
}

TEST_CASE("a weights file of another schema version is rejected with what to do") {
    fs::path p = saved_model("version.sxw");
    edit_manifest(p, [](nlohmann::json &m) { m["feature_schema_version"] = 0; });
    std::string e = load_error(p);
    CHECK_THAT(e, Catch::Contains("\"feature_schema_version\" differs") &&
                      Catch::Contains("expected " + std::to_string(kFeatureSchemaVersion)) &&
                      Catch::Contains("found 0") && Catch::Contains("sextant-train") &&
                      Catch::Contains("version.sxw"));
}

TEST_CASE("a weights file of another shape is rejected") {
    fs::path p = saved_model("shape.sxw");
    edit_manifest(p, [](nlohmann::json &m) { m["num_schedule_features"] = 12; });
    CHECK_THAT(load_error(p),
               Catch::Contains("\"num_schedule_features\" differs") && Catch::Contains("found 12"));
    p = saved_model("shape2.sxw");
    edit_manifest(p, [](nlohmann::json &m) { m["hidden"] = 17; });
    CHECK_THAT(load_error(p), Catch::Contains("tensor 4 differs: expected hidden.weight [32,17]") &&
                                  Catch::Contains("found hidden.weight [32,16]"));
    p = saved_model("shape3.sxw");
    edit_manifest(p, [](nlohmann::json &m) { m["cost_terms"][0] = "renamed"; });
    CHECK_THAT(load_error(p), Catch::Contains("\"cost_terms\" differs"));
}

TEST_CASE("a failed load leaves the model unchanged") {
    std::vector<double> before;
    fs::path good = saved_model("good.sxw", &before);
    auto m = load_torch_cost_model(good.string(), 8, 32e6);
    fs::path bad = saved_model("bad.sxw");
    edit_manifest(bad, [](nlohmann::json &j) { j["num_cost_terms"] = 3; });
    CHECK_THROWS_AS(m->load(bad.string()), UserError);
    Rows r;
    CHECK(m->predict_stages(r.batch) == before);
}

TEST_CASE("the allocator's learned prices are saved, and older files load with the hand-set ones") {
    TorchModelConfig c;
    c.parallelism = 8;
    c.llc_bytes = 32e6;
    TorchCostModel m(c);
    m.set_parameter("allocator.log_price", {std::log(3.0), std::log(0.5)});
    AllocatorEstimate e;
    e.page_faults = 100;
    e.page_faults_nests = 40;
    const double want = 60 * 3 * kMainArenaFaultSeconds + 40 * 0.5 * kThreadArenaFaultSeconds;
    CHECK(m.allocator_cost(e) == Approx(want));
    fs::path p = temp_path("prices.sxw");
    m.save(p.string());
    CHECK(load_torch_cost_model(p.string(), 8, 32e6)->allocator_cost(e) == Approx(want));

    // A file written before the prices existed: one tensor less, read as the hand-set prices.
    nlohmann::json manifest;
    std::vector<NamedTensor> tensors;
    read_weights_file(p.string(), manifest, tensors);
    REQUIRE(tensors.back().name == "allocator.log_price");
    tensors.pop_back();
    manifest.erase("tensors");
    fs::path old = temp_path("before-prices.sxw");
    write_weights_file(old.string(), manifest, tensors);
    CHECK(load_torch_cost_model(old.string(), 8, 32e6)->allocator_cost(e) ==
          Approx(allocator_seconds(e)));
}
