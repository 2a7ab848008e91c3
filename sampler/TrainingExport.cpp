#include "TrainingExport.h"

#include "featurizer/Featurizer.h"
#include "halide/DagBuilder.h"
#include "measure/Runner.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/RandomWorkload.h"
#include "search/SearchSpace.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace sextant {

namespace rp = random_pipelines;

std::vector<TrainingSample> workload_training_samples(const WorkloadInfo &w,
                                                      const std::vector<SampleRecord> &records,
                                                      TrainingExportStats &stats) {
    if (w.kind != "random")
        throw UserError("workload '" + w.identity + "' is of kind '" + w.kind +
                        "'; only random workloads can be rebuilt for export");
    RandomWorkload rw = parse_random_workload_json(w.options);
    if (!same_pipeline_as_recorded(rw, w.identity))
        throw UserError("workload '" + w.identity +
                        "' no longer matches the random pipeline "
                        "generator (now " +
                        random_identity(rw) +
                        "); its records cannot be "
                        "re-featurized");
    rp::RandomPipeline p = rp::make_random_pipeline(rw.seed, rw.options);
    std::vector<Halide::Internal::Function> outs;
    for (const Halide::Func &f : p.outputs)
        outs.push_back(f.function());
    PipelineDag dag =
        build_pipeline_dag(outs, Halide::Target(w.target), parse_machine_string(w.machine));
    Featurizer featurizer(dag);
    SearchSpace space(dag);
    std::vector<TrainingSample> out;
    // A schedule that timed out is slower than anything of its pipeline that finished; it is
    // exported with a censored runtime, twice the slowest finished one, so that the model
    // learns to rank it last (dropping it would hide exactly the disasters a model must avoid).
    double slowest_ok = 0;
    for (const SampleRecord &r : records)
        if (r.ok()) slowest_ok = std::max(slowest_ok, *r.runtime_min_s);
    for (const SampleRecord &r : records) {
        bool censored =
            !r.ok() && r.error->find("timeout after") != std::string::npos && slowest_ok > 0;
        if (!r.ok() && !censored) {
            stats.failed_records++;
            continue;
        }
        try {
            StatePtr s = space.replay(r.schedule_text);
            FeatureBatch b = featurizer.featurize_schedule(s->decisions, s->nests);
            out.push_back(make_training_sample(w.identity, b, 0,
                                               censored ? 2 * slowest_ok : *r.runtime_min_s));
            const AllocatorEstimate a = estimate_allocator(dag, s->decisions, s->nests);
            out.back().page_faults = a.page_faults;
            out.back().page_faults_nests = a.page_faults_nests;
            out.back().source = r.source;
            if (censored) stats.censored_records++;
        } catch (const std::exception &e) {
            stats.skipped_records++;
            stats.warnings.push_back("record " + std::to_string(r.id) + " of " + w.identity + ": " +
                                     e.what());
        }
    }
    return out;
}

TrainingExportStats export_training(SampleStore &store, const std::string &path) {
    // One model learns one machine: samples timed on different machine kinds (a merged store
    // of several clusters' shards, an import) are not one training set.
    std::set<std::string> kinds;
    for (const WorkloadInfo &w : store.workloads())
        kinds.insert("target " + w.target + ", machine " + w.machine);
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
    for (const WorkloadInfo &w : store.workloads()) {
        std::vector<SampleRecord> records = store.records(w.id);
        // One child per workload: Halide uniquifies Func names per process, so a second
        // pipeline built in one process would not match its ScheduleText; a child also keeps
        // a crash in one workload from ending the export.
        RunResult c = run_function(
            [&](int fd) {
                TrainingExportStats s;
                std::string out;
                try {
                    for (const TrainingSample &t : workload_training_samples(w, records, s))
                        out += "S " + sample_to_json_line(t) + "\n";
                } catch (const std::exception &e) {
                    s.skipped_workloads++;
                    s.warnings.push_back(e.what());
                }
                for (std::string m : s.warnings) {
                    for (char &ch : m)
                        if (ch == '\n') ch = ' ';
                    out += "W " + m + "\n";
                }
                out += "C " + std::to_string(s.failed_records) + " " +
                       std::to_string(s.skipped_records) + " " +
                       std::to_string(s.skipped_workloads) + " " +
                       std::to_string(s.censored_records) + "\n";
                write_all(fd, out);
            },
            ChildOptions());
        std::istringstream lines(c.output);
        std::string line;
        bool counted = false;
        while (std::getline(lines, line)) {
            if (line.rfind("S ", 0) == 0) {
                f << line.substr(2) << "\n";
                stats.samples++;
            } else if (line.rfind("W ", 0) == 0) {
                stats.warnings.push_back(line.substr(2));
            } else if (line.rfind("C ", 0) == 0) {
                std::istringstream in(line.substr(2));
                int64_t a = 0, b = 0, d = 0, e = 0;
                in >> a >> b >> d >> e;
                stats.failed_records += a;
                stats.skipped_records += b;
                stats.skipped_workloads += d;
                stats.censored_records += e;
                counted = true;
            }
        }
        if (!counted) {
            stats.skipped_workloads++;
            stats.warnings.push_back("workload '" + w.identity + "': export child failed (" +
                                     c.message + ")");
        }
    }
    if (!f) throw UserError("error while writing training samples to '" + path + "'");
    return stats;
}

} // namespace sextant
