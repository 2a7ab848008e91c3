// Fine-tuning (AutotuneOptions::train_epochs): after each batch the cost model is trained
// again, by sextant-train in a child process, on every schedule of this workload measured so
// far, and the proposers of the next batch use it (WORK/tuned.sxw).
#include "costmodel/TrainingData.h"
#include "costmodel/WeightsFile.h"
#include "featurizer/Schema.h"
#include "support/Errors.h"
#include "support/Files.h"
#include "tools/autotune/AutotunerImpl.h"
#include "tools/autotune/Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
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
    // The weights to start from are one net, or an ensemble (the shipped weights are): then
    // each of its nets is fine-tuned on its own and the tuned ensemble names them beside its
    // analytical members, with the same caution (sextant-train's --init takes a net).
    const std::optional<EnsembleSpec> ensemble =
        opt_.weights.empty() ? std::nullopt : read_ensemble_file(opt_.weights);
    std::vector<std::string> inits;
    if (ensemble) {
        for (const std::string &m : ensemble->members)
            if (m != "analytical") inits.push_back(m);
    } else {
        inits.push_back(opt_.weights); // "": a fresh net
    }
    std::vector<fs::path> trained;
    std::vector<double> accuracy;
    double wall = 0;
    for (size_t k = 0; k < inits.size(); k++) {
        const std::string name = inits.size() > 1 ? "-m" + std::to_string(k + 1) : "";
        fs::path out = dir_ / ("train" + name);
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
        if (!inits[k].empty()) {
            cmd.push_back("--init");
            cmd.push_back(inits[k]);
        }
        std::string logp =
            (dir_ / "logs" / ("train-" + std::to_string(batch) + name + ".log")).string();
        fs::remove(logp);
        RunResult r = run_logged(cmd, {}, logp, 1800);
        if (!r.ok() || !fs::exists(out / "weights.sxw")) {
            log("warning: fine-tuning failed (" + r.message +
                "), keeping the previous model; see " + logp);
            return;
        }
        wall += r.wall_s;
        trained.push_back(out / "weights.sxw");
        try {
            json rep = json::parse(read_text(out / "report.json"));
            accuracy.push_back(rep.at("metrics").at("validation").at("pairwise_accuracy"));
        } catch (...) {
        }
    }
    if (ensemble) {
        // The members first, then the ensemble that names them (relative to the work dir).
        fs::create_directories(dir_ / "tuned-members");
        EnsembleSpec tuned;
        tuned.caution = ensemble->caution;
        size_t next = 0;
        for (const std::string &m : ensemble->members) {
            if (m == "analytical") {
                tuned.members.push_back(m);
                continue;
            }
            const std::string file = "tuned-members/m" + std::to_string(next + 1) + ".sxw";
            copy_file_atomically(trained[next++], dir_ / file);
            tuned.members.push_back(file);
        }
        // (write_ensemble_file writes the file whole: a proposer never reads half of it.)
        write_ensemble_file((dir_ / "tuned.sxw").string(), tuned,
                            {{"training",
                              {{"note", "the ensemble " + opt_.weights +
                                            "'s nets fine-tuned by sextant-autotune"}}}});
    } else {
        copy_file_atomically(trained.front(), dir_ / "tuned.sxw");
    }
    std::string acc;
    if (!accuracy.empty()) {
        double mean = 0;
        for (double a : accuracy)
            mean += a / double(accuracy.size());
        acc =
            ", pairwise accuracy on its own data " + std::to_string(mean).substr(0, 5) +
            (accuracy.size() > 1 ? " (mean of " + std::to_string(accuracy.size()) + " nets)" : "");
    }
    log("fine-tuned on " + std::to_string(samples.size()) + " measured schedules in " +
        std::to_string(int(wall)) + " s" + acc);
}

} // namespace autotune_detail
} // namespace sextant
