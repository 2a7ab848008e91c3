#include "TrainingData.h"

#include "support/Errors.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace sextant {

TrainingSample make_training_sample(const std::string &pipeline, const FeatureBatch &batch,
                                    int state, double runtime_seconds) {
    TrainingSample s;
    s.pipeline = pipeline;
    s.runtime_seconds = runtime_seconds;
    for (size_t r = 0; r < batch.size(); r++) {
        if (batch.state_index[r] != state) continue;
        s.algorithm.push_back((*batch.algorithm).at(batch.stage_ids[r]));
        s.schedule.push_back(batch.schedule[r]);
    }
    return s;
}

AllocatorEstimate TrainingSample::allocator() const {
    AllocatorEstimate e;
    e.page_faults = page_faults;
    e.page_faults_nests = page_faults_nests;
    return e;
}

void build_sample_batch(const std::vector<const TrainingSample *> &samples, SampleBatch &out) {
    out.table.clear();
    out.batch.clear();
    for (size_t i = 0; i < samples.size(); i++) {
        const TrainingSample &s = *samples[i];
        for (size_t r = 0; r < s.schedule.size(); r++) {
            out.batch.stage_ids.push_back(int(out.table.size()));
            out.table.push_back(s.algorithm[r]);
            out.batch.schedule.push_back(s.schedule[r]);
            out.batch.state_index.push_back(int(i));
        }
    }
    out.batch.num_states = int(samples.size());
    out.batch.algorithm = &out.table;
}

std::vector<double> predict_samples(CostModel &model,
                                    const std::vector<const TrainingSample *> &samples) {
    SampleBatch b;
    build_sample_batch(samples, b);
    std::vector<double> out =
        b.batch.size() ? model.predict(b.batch) : std::vector<double>(samples.size(), 0.0);
    for (size_t i = 0; i < samples.size(); i++)
        out[i] += model.allocator_cost(samples[i]->allocator());
    return out;
}

std::string sample_to_json_line(const TrainingSample &s) {
    nlohmann::json j;
    j["schema_version"] = kFeatureSchemaVersion;
    j["pipeline"] = s.pipeline;
    j["runtime_seconds"] = s.runtime_seconds;
    j["algorithm"] = s.algorithm;
    nlohmann::json rows = nlohmann::json::array();
    for (const ScheduleRow &r : s.schedule)
        rows.push_back(std::vector<double>(r.begin(), r.end()));
    j["schedule"] = rows;
    j["allocator"] = {s.page_faults, s.page_faults_nests};
    if (!s.source.empty()) j["source"] = s.source;
    if (s.prefix_funcs > 0) j["prefix"] = s.prefix_funcs;
    return j.dump();
}

void write_samples_jsonl(const std::string &path, const std::vector<TrainingSample> &samples) {
    std::ofstream f(path, std::ios::trunc);
    if (!f) throw UserError("cannot write training samples to '" + path + "'");
    for (const TrainingSample &s : samples)
        f << sample_to_json_line(s) << "\n";
    if (!f) throw UserError("error while writing training samples to '" + path + "'");
}

namespace {

TrainingSample parse_sample(const nlohmann::json &j, const std::string &where) {
    auto fail = [&](const std::string &what) {
        throw UserError(where + ": " + what +
                        ". Regenerate the samples with this Sextant version (or re-featurize "
                        "them from their ScheduleText).");
    };
    if (!j.is_object()) fail("expected a JSON object");
    for (const char *k : {"schema_version", "pipeline", "runtime_seconds", "algorithm", "schedule"})
        if (!j.contains(k)) fail(std::string("missing field \"") + k + "\"");
    int version = j["schema_version"].get<int>();
    if (version != kFeatureSchemaVersion)
        fail("feature schema version " + std::to_string(version) + ", expected " +
             std::to_string(kFeatureSchemaVersion));
    TrainingSample s;
    s.pipeline = j["pipeline"].get<std::string>();
    s.runtime_seconds = j["runtime_seconds"].get<double>();
    if (!(s.runtime_seconds > 0) || !std::isfinite(s.runtime_seconds))
        fail("runtime_seconds must be a positive number");
    if (j.contains("allocator")) {
        std::vector<double> a = j["allocator"].get<std::vector<double>>();
        if (a.size() != 2 || !(a[0] >= 0) || !(a[1] >= 0) || !(a[1] <= a[0]) ||
            !std::isfinite(a[0]))
            fail("\"allocator\" must be [page_faults, page_faults_nests], 0 <= nests <= all");
        s.page_faults = a[0];
        s.page_faults_nests = a[1];
    }
    if (j.contains("source")) {
        if (!j["source"].is_string()) fail("\"source\" must be a string");
        s.source = j["source"].get<std::string>();
    }
    if (j.contains("prefix")) {
        if (!j["prefix"].is_number_integer() || j["prefix"].get<int>() < 1)
            fail("\"prefix\" must be a positive integer (Funcs decided)");
        s.prefix_funcs = j["prefix"].get<int>();
    }
    s.algorithm = j["algorithm"].get<std::vector<std::vector<float>>>();
    std::vector<std::vector<double>> rows = j["schedule"].get<std::vector<std::vector<double>>>();
    if (rows.size() != s.algorithm.size())
        fail("\"algorithm\" has " + std::to_string(s.algorithm.size()) +
             " rows but \"schedule\" has " + std::to_string(rows.size()));
    const size_t na = size_t(num_algorithm_features());
    for (size_t r = 0; r < rows.size(); r++) {
        if (s.algorithm[r].size() != na)
            fail("algorithm row " + std::to_string(r) + " has " +
                 std::to_string(s.algorithm[r].size()) + " features, expected " +
                 std::to_string(na));
        if (rows[r].size() != size_t(kNumScheduleFeatures))
            fail("schedule row " + std::to_string(r) + " has " + std::to_string(rows[r].size()) +
                 " features, expected " + std::to_string(kNumScheduleFeatures));
        ScheduleRow row{};
        for (int k = 0; k < kNumScheduleFeatures; k++)
            row[k] = rows[r][k];
        s.schedule.push_back(row);
    }
    return s;
}

} // namespace

std::vector<TrainingSample> read_samples_jsonl(const std::string &path) {
    std::ifstream f(path);
    if (!f) throw UserError("cannot open training samples '" + path + "'");
    std::vector<TrainingSample> out;
    std::string line;
    int line_no = 0;
    while (std::getline(f, line)) {
        line_no++;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::string where = path + ":" + std::to_string(line_no);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception &e) {
            throw UserError(where + ": not valid JSON (" + e.what() +
                            "); the file may be truncated or corrupt");
        }
        try {
            out.push_back(parse_sample(j, where));
        } catch (const nlohmann::json::exception &e) {
            throw UserError(where + ": a field has the wrong type (" + e.what() + ")");
        }
    }
    return out;
}

uint64_t stable_hash(const std::string &s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

bool is_validation_pipeline(const std::string &pipeline, int validation_percent, int offset) {
    const int bucket = int(stable_hash(pipeline) % 100);
    return ((bucket - offset) % 100 + 100) % 100 < validation_percent;
}

bool in_training_fraction(const std::string &pipeline, int percent) {
    return int(stable_hash(pipeline + "#training-fraction") % 100) < percent;
}

} // namespace sextant
