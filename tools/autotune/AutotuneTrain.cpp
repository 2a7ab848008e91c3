// Fine-tuning (AutotuneOptions::train_epochs): after each batch the cost model is trained
// again, by sextant-train in a child process, on every schedule of this workload measured so
// far, and the proposers of the next batch use it (WORK/tuned.sxw).
#include "costmodel/TrainingData.h"
#include "featurizer/Schema.h"
#include "support/Errors.h"
#include "support/Files.h"
#include "tools/autotune/AutotunerImpl.h"
#include "tools/autotune/Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace sextant {
namespace autotune_detail {

namespace {

/** The plugin's -e featurization JSON plus a runtime -> one trainer sample. */
TrainingSample featurization_to_sample(const std::string &pipeline, const json &f,
                                       double runtime_s) {
    if (f.value("schema_version", -1) != kFeatureSchemaVersion)
        throw UserError("featurization has schema version " +
                        std::to_string(f.value("schema_version", -1)) + ", expected " +
                        std::to_string(kFeatureSchemaVersion));
    TrainingSample s;
    s.pipeline = pipeline;
    s.runtime_seconds = runtime_s;
    const auto &names = schedule_schema();
    for (const json &row : f.at("stages")) {
        s.algorithm.push_back(row.at("algorithm").get<std::vector<float>>());
        ScheduleRow r{};
        for (size_t k = 0; k < names.size(); k++)
            r[k] = row.at("schedule").at(names[k].name);
        s.schedule.push_back(r);
    }
    return s;
}

} // namespace

void Autotuner::fine_tune(int batch) {
    if (opt_.trainer.empty()) return;
    // Every measured schedule of this workload with its features, rebuilt from the store.
    std::vector<TrainingSample> samples;
    for (const SampleRecord &r : store_->records(workload_id_)) {
        if (!r.ok()) continue;
        fs::path f = dir_ / "features" / (r.schedule_hash + ".json");
        if (!fs::exists(f)) continue;
        try {
            samples.push_back(
                featurization_to_sample(identity_, json::parse(read_text(f)), *r.runtime_min_s));
        } catch (const std::exception &e) {
            log("warning: skipping features " + f.string() + ": " + e.what());
        }
    }
    if (samples.size() < 4) {
        log("fine-tuning skipped: " + std::to_string(samples.size()) +
            " measured schedules so far (need 4)");
        return;
    }
    fs::path data = dir_ / "training.jsonl";
    write_samples_jsonl(data.string(), samples);
    fs::path out = dir_ / "train";
    fs::remove_all(out);
    std::vector<std::string> cmd = {opt_.trainer,
                                    "--data",
                                    data.string(),
                                    "--out",
                                    out.string(),
                                    "--epochs",
                                    std::to_string(opt_.train_epochs),
                                    "--val-percent",
                                    "0",
                                    "--seed",
                                    std::to_string(batch + 1),
                                    "--parallelism",
                                    std::to_string(parallelism_),
                                    "--llc-bytes",
                                    std::to_string(int64_t(llc_bytes_)),
                                    "--threads",
                                    std::to_string(std::max(1, opt_.jobs)),
                                    "--no-plot",
                                    "--quiet"};
    if (!opt_.weights.empty()) {
        cmd.push_back("--init");
        cmd.push_back(opt_.weights);
    }
    std::string logp = (dir_ / "logs" / ("train-" + std::to_string(batch) + ".log")).string();
    fs::remove(logp);
    RunResult r = run_logged(cmd, {}, logp, 1800);
    if (!r.ok() || !fs::exists(out / "weights.sxw")) {
        log("warning: fine-tuning failed (" + r.message + "), keeping the previous model; see " +
            logp);
        return;
    }
    copy_file_atomically(out / "weights.sxw", dir_ / "tuned.sxw");
    std::string acc;
    try {
        json rep = json::parse(read_text(out / "report.json"));
        double a = rep.at("metrics").at("validation").at("pairwise_accuracy");
        acc = ", pairwise accuracy on its own data " + std::to_string(a).substr(0, 5);
    } catch (...) {
    }
    log("fine-tuned on " + std::to_string(samples.size()) + " measured schedules in " +
        std::to_string(int(r.wall_s)) + " s" + acc);
}

} // namespace autotune_detail
} // namespace sextant
