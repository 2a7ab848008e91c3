// Autotuner::setup: checks the options, claims the work directory for one pipeline, opens its
// sample store, resumes from the logs and builds the Halide runtime once (AutotunerImpl.h); and
// resolves the other autoschedulers --also names.
#include "dag/PipelineDag.h"
#include "featurizer/Schema.h"
#include "sampler/SampleStore.h"
#include "support/Errors.h"
#include "support/Files.h"
#include "tools/autotune/AutotunerImpl.h"
#include "tools/autotune/Files.h"

#include <cctype>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace sextant {
namespace autotune_detail {

std::pair<std::string, std::string> also_scheduler(const std::string &entry) {
    // Halide 14's own autoschedulers, where Debian's libhalide14-0-dev puts them.
    static const char *kDir = "/usr/lib/x86_64-linux-gnu/halide14/";
    std::string plugin, name;
    if (entry == "adams2019") {
        plugin = std::string(kDir) + "libautoschedule_adams2019.so", name = "Adams2019";
    } else if (entry == "li2018") {
        plugin = std::string(kDir) + "libautoschedule_li2018.so", name = "Li2018";
    } else if (entry == "mullapudi2016") {
        plugin = std::string(kDir) + "libautoschedule_mullapudi2016.so", name = "Mullapudi2016";
    } else if (entry.find(':') != std::string::npos) {
        plugin = entry.substr(0, entry.rfind(':'));
        name = entry.substr(entry.rfind(':') + 1);
    } else {
        throw UserError("--also: unknown autoscheduler '" + entry +
                        "' (adams2019, li2018, mullapudi2016, or PLUGIN.so:NAME)");
    }
    if (name.empty() || !fs::exists(plugin))
        throw UserError("--also " + entry + ": no plugin '" + plugin + "'" +
                        (name.empty() ? " (and no scheduler name after ':')" : ""));
    return {fs::absolute(plugin).string(), name};
}

Proposal also_proposal(const std::string &entry) {
    Proposal p;
    std::tie(p.scheduler_plugin, p.scheduler_name) = also_scheduler(entry);
    p.source = "also:" + entry;
    p.anchor = true;
    // A file name that says whose it is (an entry may be a path).
    std::string key;
    for (char c : p.scheduler_name)
        key += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '_';
    p.hash = "also-" + key;
    return p;
}

void Autotuner::setup() {
    check_options();
    const json ident = claim_work_dir();
    open_store(ident);
    resume_from_logs();
    build_runtime();
}

void Autotuner::check_options() {
    if (opt_.generator.empty() || opt_.generator_name.empty())
        throw UserError("a generator binary (--generator) and a generator name (-g) are required");
    if (!fs::exists(opt_.generator))
        throw UserError("generator binary '" + opt_.generator + "' does not exist");
    if (access(opt_.generator.c_str(), X_OK) != 0)
        throw UserError("generator binary '" + opt_.generator + "' is not executable");
    opt_.generator = fs::absolute(opt_.generator).string();
    if (!fs::exists(opt_.plugin))
        throw UserError("Sextant plugin '" + opt_.plugin + "' does not exist (--plugin)");
    if (!fs::exists(opt_.time_exe))
        throw UserError("the pipeline driver sextant-time was not found at '" + opt_.time_exe +
                        "' (build the sextant-time target)");
    for (const std::string &entry : opt_.also)
        also_scheduler(entry); // an unknown name or a missing plugin is refused before any work
    if (opt_.select != "model" && opt_.select != "all" && opt_.select != "remeasure")
        throw UserError("--select must be 'model' or 'all', not '" + opt_.select + "'");
    if (opt_.machine_params.empty()) {
        const MachineInfo host = host_machine(0);
        opt_.machine_params = std::to_string(host.parallelism) + "," +
                              std::to_string(host.last_level_cache_bytes) + ",40";
    }
    {
        std::istringstream in(opt_.machine_params);
        char c1 = 0, c2 = 0;
        double balance = 0;
        if (!(in >> parallelism_ >> c1 >> llc_bytes_ >> c2 >> balance) || c1 != ',' || c2 != ',' ||
            parallelism_ < 1 || llc_bytes_ <= 0)
            throw UserError("machine params '" + opt_.machine_params +
                            "' are not 'cores,llc_bytes,balance'");
    }
}

json Autotuner::claim_work_dir() {
    fs::create_directories(dir_ / "logs");
    fs::create_directories(dir_ / "features");
    fs::create_directories(dir_ / "schedules");
    json ident = {{"generator", opt_.generator},           {"generator_name", opt_.generator_name},
                  {"generator_args", opt_.generator_args}, {"target", opt_.target},
                  {"machine_params", opt_.machine_params}, {"select", opt_.select}};
    fs::path ident_path = dir_ / "workload.json";
    if (fs::exists(ident_path)) {
        json old = json::parse(read_text(ident_path));
        if (old != ident)
            throw UserError("work directory '" + dir_.string() +
                            "' holds an autotuning run of another pipeline or setting:\n  " +
                            old.dump() + "\nnot\n  " + ident.dump() +
                            "\nUse another --dir, or remove it to start over.");
    } else {
        write_file_atomically(ident_path, ident.dump(1) + "\n");
    }
    std::string args;
    for (const std::string &a : opt_.generator_args)
        args += (args.empty() ? "" : " ") + a;
    identity_ = "user:" + fs::path(opt_.generator).filename().string() + ":" + opt_.generator_name +
                "(" + args + ")";
    return ident;
}

void Autotuner::open_store(const json &ident) {
    store_ = std::make_unique<SampleStore>((dir_ / "samples.db").string());
    WorkloadInfo w;
    w.kind = "user";
    w.identity = identity_;
    w.target = opt_.target;
    w.machine = "machine_params=" + opt_.machine_params;
    w.options = ident.dump();
    w.sextant_version = "autotune";
    w.featurizer_version = kFeatureSchemaVersion;
    workload_id_ = store_->upsert_workload(w);
}

void Autotuner::resume_from_logs() {
    for (const json &m : read_json_lines(dir_ / "measurements.jsonl")) {
        measurements_ = std::max(measurements_, m.value("n", 0));
        elapsed_base_ = std::max(elapsed_base_, m.value("elapsed_s", 0.0));
        if (m.contains("runtime_seconds") && m["runtime_seconds"].is_number()) {
            double r = m["runtime_seconds"];
            if (m.contains("best_hash") && m["best_seconds"].is_number()) {
                // Logged after any duel: the best so far as the run had it.
                best_s_ = m["best_seconds"];
                best_hash_ = m["best_hash"];
            } else if (best_s_ == 0 || r < best_s_) {
                best_s_ = r;
                best_hash_ = m.value("hash", "");
            }
            if (m.value("baseline", false)) baseline_s_ = r;
        } else {
            failures_++;
        }
    }
    for (const json &b : read_json_lines(dir_ / "batches.jsonl"))
        elapsed_base_ = std::max(elapsed_base_, b.value("elapsed_s", 0.0));
}

void Autotuner::build_runtime() {
    runtime_so_ = dir_ / "runtime" / "libsextant_runtime.so";
    if (!fs::exists(runtime_so_)) {
        fs::create_directories(runtime_so_.parent_path());
        log("building the Halide runtime for " + opt_.target + " once for all benchmarks...");
        std::string logp = (dir_ / "logs" / "runtime.log").string();
        RunResult g = run_logged({opt_.generator, "-r", "sextant_runtime", "-o",
                                  runtime_so_.parent_path().string(), "-e", "object",
                                  "target=" + opt_.target},
                                 {}, logp, 600, true);
        fs::path tmp = runtime_so_;
        tmp += ".tmp";
        RunResult l;
        if (g.ok())
            l = run_logged({opt_.cxx, "-shared", "-o", tmp.string(),
                            (runtime_so_.parent_path() / "sextant_runtime.o").string(), "-ldl",
                            "-lpthread"},
                           {}, logp, 600);
        if (!g.ok() || !l.ok())
            throw UserError("building the Halide runtime failed (" +
                            (g.ok() ? l.message : g.message) + "):\n" + file_tail(logp, 20));
        fs::rename(tmp, runtime_so_);
    }
}

} // namespace autotune_detail
} // namespace sextant
