#include "TrainingExport.h"

#include "costmodel/TrainingReplay.h"
#include "halide/DagBuilder.h"
#include "measure/Runner.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/RandomWorkload.h"
#include "support/Files.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

namespace sextant {

namespace rp = random_pipelines;
namespace fs = std::filesystem;
using json = nlohmann::json;

#ifndef SEXTANT_PLUGIN_PATH
#define SEXTANT_PLUGIN_PATH "libautoschedule_sextant.so"
#endif

std::string plugin_path() {
    return SEXTANT_PLUGIN_PATH;
}

namespace {

/** The records to export: finished ones as measured, timed-out ones censored. A schedule that
 * timed out is slower than anything of its pipeline that finished; it is exported with twice
 * the slowest finished runtime, so that the model learns to rank it last (dropping it would
 * hide exactly the disasters a model must avoid). Other failures are counted and left out. */
std::vector<MeasuredSchedule> records_to_export(const std::vector<SampleRecord> &records,
                                                TrainingExportStats &stats) {
    double slowest_ok = 0;
    for (const SampleRecord &r : records)
        if (r.ok()) slowest_ok = std::max(slowest_ok, *r.runtime_min_s);
    std::vector<MeasuredSchedule> out;
    for (const SampleRecord &r : records) {
        bool censored =
            !r.ok() && r.error->find("timeout after") != std::string::npos && slowest_ok > 0;
        if (!r.ok() && !censored) {
            stats.failed_records++;
            continue;
        }
        MeasuredSchedule m;
        m.id = r.id;
        m.schedule_text = r.schedule_text;
        m.runtime_s = censored ? 2 * slowest_ok : *r.runtime_min_s;
        m.source = r.source;
        m.censored = censored;
        out.push_back(std::move(m));
    }
    return out;
}

/** A random workload's reply, made in a child process: Halide uniquifies Func names per
 * process, so a second pipeline built in one process would not match its ScheduleText; a
 * child also keeps a crash in one workload from ending the export. */
std::string random_workload_reply(const WorkloadInfo &w,
                                  const std::vector<MeasuredSchedule> &records, int prefixes) {
    RunResult c = run_function(
        [&](int fd) {
            std::string out;
            try {
                RandomWorkload rw = parse_random_workload_json(w.options);
                if (!same_pipeline_as_recorded(rw, w.identity))
                    throw UserError("workload '" + w.identity +
                                    "' no longer matches the random pipeline generator (now " +
                                    random_identity(rw) + "); its records cannot be re-featurized");
                rp::RandomPipeline p = rp::make_random_pipeline(rw.seed, rw.options);
                std::vector<Halide::Internal::Function> outs;
                for (const Halide::Func &f : p.outputs)
                    outs.push_back(f.function());
                PipelineDag dag = build_pipeline_dag(outs, Halide::Target(w.target),
                                                     parse_machine_string(w.machine));
                out = encode_replay_reply(replay_measured(dag, w.identity, records, prefixes));
            } catch (const std::exception &e) {
                std::string m = e.what();
                for (char &ch : m)
                    if (ch == '\n') ch = ' ';
                out = "W " + m + "\n";
            }
            write_all(fd, out);
        },
        ChildOptions());
    if (!c.ok())
        return c.output + "W workload '" + w.identity + "': export child failed (" + c.message +
               ")\n";
    return c.output;
}

} // namespace

std::string user_workload_reply(const WorkloadInfo &w, const std::vector<MeasuredSchedule> &records,
                                const std::string &plugin, const std::string &generators_dir,
                                double timeout_s) {
    json opt;
    try {
        opt = json::parse(w.options);
    } catch (const json::exception &e) {
        throw UserError("workload '" + w.identity + "' has malformed options: " + e.what());
    }
    std::string generator = opt.value("generator", "");
    const std::string name = opt.value("generator_name", "");
    if (generator.empty() || name.empty())
        throw UserError("workload '" + w.identity +
                        "' names no generator and generator_name in its options, so its "
                        "pipeline cannot be rebuilt");
    if (!fs::exists(generator) && !generators_dir.empty() &&
        fs::exists(fs::path(generators_dir) / fs::path(generator).filename()))
        generator = (fs::path(generators_dir) / fs::path(generator).filename()).string();
    if (!fs::exists(generator))
        throw UserError("workload '" + w.identity + "': its generator '" + generator +
                        "' does not exist here; build it, or name the directory that holds it "
                        "with --generators-dir (the bench's: ninja -C build "
                        "sextant_bench_generators, then --generators-dir build/bench)");
    if (!fs::exists(plugin))
        throw UserError("the Sextant plugin '" + plugin + "' does not exist; build it first");
    const fs::path dir =
        fs::temp_directory_path() / ("sextant-export-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(stable_hash(w.identity)));
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_replay_request((dir / "request.json").string(), w.identity, records);
    // The generator's own target and machine, as the workload recorded them; no runtime, and
    // only the schedule emitted: nothing is compiled to machine code.
    std::vector<std::string> argv = {generator,
                                     "-g",
                                     name,
                                     "-o",
                                     dir.string(),
                                     "-f",
                                     "pipeline",
                                     "-e",
                                     "schedule",
                                     "-p",
                                     plugin,
                                     "-s",
                                     "Sextant",
                                     "target=" + w.target + "-no_runtime",
                                     "auto_schedule=true",
                                     w.machine};
    for (const json &a : opt.value("generator_args", json::array()))
        argv.push_back(a.get<std::string>());
    ChildOptions o;
    o.timeout_s = timeout_s;
    o.capture_stdout = false;
    o.log_path = (dir / "generator.log").string();
    o.env = {{"SEXTANT_EXPORT_TRAINING", dir.string()}, {"SEXTANT_COST_MODEL", "analytical"}};
    o.drop_env = autoscheduler_env;
    RunResult g = run_program(argv, o);
    std::string reply;
    if (fs::exists(dir / "reply.txt")) reply = read_whole_file(dir / "reply.txt", "export reply");
    if (!g.ok())
        reply += "W workload '" + w.identity + "': its generator " + g.message + ": " +
                 file_tail(o.log_path, 3) + "\n";
    fs::remove_all(dir);
    return reply;
}

TrainingExportStats export_training(SampleStore &store, const std::string &path,
                                    const std::string &generators_dir, int prefixes) {
    // One model learns one machine: samples timed on different machine kinds (a merged store
    // of several clusters' shards, an import) are not one training set.
    // Stores before session 58 name no processor (no host in the machine string), and a VM
    // guest lists its caches in the host on some days only: such workloads go with the one
    // processor recorded for the same target and params, with a warning; two processors are
    // two machine kinds.
    const std::vector<WorkloadInfo> workloads = store.workloads();
    std::set<std::string> hosts, processors;
    int64_t unrecorded = 0;
    for (const WorkloadInfo &w : workloads) {
        const std::string host = machine_string_host(w.machine);
        if (host.empty()) {
            unrecorded++;
        } else {
            hosts.insert(host);
            processors.insert(host_processor(host));
        }
    }
    const bool join = processors.size() == 1 && (unrecorded > 0 || hosts.size() > 1);
    if (join && unrecorded > 0)
        std::fprintf(stderr,
                     "warning: %lld workloads name no processor; exported with those timed on "
                     "'%s' as one machine kind (weights/README.md says where each shard was "
                     "timed)\n",
                     (long long)unrecorded, processors.begin()->c_str());
    if (join && hosts.size() > 1)
        std::fprintf(stderr,
                     "warning: %zu descriptions of processor '%s' (caches listed or not) "
                     "exported as one machine kind\n",
                     hosts.size(), processors.begin()->c_str());
    std::set<std::string> kinds;
    for (const WorkloadInfo &w : workloads)
        kinds.insert("target " + w.target + ", machine " +
                     (join ? machine_string_params(w.machine) : w.machine));
    if (kinds.size() > 1) {
        std::string list;
        for (const std::string &k : kinds)
            list += "\n  " + k;
        throw UserError("the store holds samples of " + std::to_string(kinds.size()) +
                        " machine kinds; train on one at a time (keep each kind's samples in a "
                        "store of its own):" +
                        list);
    }
    std::ofstream f(path, std::ios::trunc);
    if (!f) throw UserError("cannot write training samples to '" + path + "'");
    TrainingExportStats stats;
    int64_t whole_only = 0; // user workloads exported without prefixes
    for (const WorkloadInfo &w : workloads) {
        std::vector<MeasuredSchedule> records = records_to_export(store.records(w.id), stats);
        std::string text;
        if (w.kind == "random") {
            text = random_workload_reply(w, records, prefixes);
        } else if (w.kind == "user") {
            if (prefixes > 0) whole_only++;
            try {
                text = user_workload_reply(w, records, plugin_path(), generators_dir, 600);
            } catch (const UserError &e) {
                text = std::string("W ") + e.what() + "\n";
            }
        } else {
            text = "W workload '" + w.identity + "' is of kind '" + w.kind +
                   "', which cannot be rebuilt for export\n";
        }
        ReplayReply r = decode_replay_reply(text);
        for (const std::string &line : r.sample_lines)
            f << line << "\n";
        stats.samples += int64_t(r.sample_lines.size());
        stats.skipped_records += r.skipped;
        stats.censored_records += r.censored;
        stats.warnings.insert(stats.warnings.end(), r.warnings.begin(), r.warnings.end());
        if (!r.complete) stats.skipped_workloads++;
    }
    if (!f) throw UserError("error while writing training samples to '" + path + "'");
    if (whole_only > 0)
        stats.warnings.push_back(std::to_string(whole_only) +
                                 " user workloads were exported without prefixes (their "
                                 "generators replay whole schedules only)");
    return stats;
}

} // namespace sextant
