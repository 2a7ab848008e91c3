#include "sampler/Remeasure.h"

#include "random_pipelines/RandomPipeline.h"
#include "sampler/ChildJobs.h"
#include "sampler/RandomWorkload.h"
#include "support/Errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>

#ifndef SEXTANT_TIME_EXE
#define SEXTANT_TIME_EXE "sextant-time"
#endif

namespace sextant {

namespace {

struct Item {
    WorkloadInfo workload;
    RandomWorkload rw;
    SampleRecord record;
};

} // namespace

RemeasureSummary remeasure_sample_set(SampleStore &store, const RemeasureOptions &opt) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    RemeasureSummary sum;
    std::vector<WorkloadInfo> all;
    for (WorkloadInfo &w : store.workloads())
        if (w.kind == "random") all.push_back(std::move(w));
    std::mt19937_64 rng(opt.seed);
    std::shuffle(all.begin(), all.end(), rng);
    size_t want = std::max<size_t>(1, size_t(double(all.size()) * opt.fraction + 0.5));
    all.resize(std::min(all.size(), want));

    std::vector<Item> items;
    for (const WorkloadInfo &w : all) {
        RandomWorkload rw;
        try {
            rw = parse_random_workload_json(w.options);
            if (!same_pipeline_as_recorded(rw, w.identity)) {
                std::fprintf(stderr, "skipping %s: the generator now plans another pipeline\n",
                             w.identity.c_str());
                continue;
            }
        } catch (const std::exception &e) {
            std::fprintf(stderr, "skipping %s: %s\n", w.identity.c_str(), e.what());
            continue;
        }
        sum.workloads++;
        for (SampleRecord &r : store.records(w.id))
            if (r.ok()) items.push_back({w, rw, std::move(r)});
    }

    TimingSetup setup;
    setup.time_exe = SEXTANT_TIME_EXE;
    const std::string dir = make_work_dir("sextant-remeasure");
    setup.work_dir = dir;
    std::map<std::string, std::string> runtimes; // target -> runtime .so
    std::ofstream out(opt.out_path, std::ios::trunc);
    if (!out) throw UserError("cannot write " + opt.out_path);

    const std::string host = host_description();
    MeasurePool pool(opt.jobs);
    std::map<int64_t, size_t> in_flight;
    size_t next = 0;
    auto finish = [&](int64_t tag, const Measurement &m) {
        const Item &it = items[in_flight.at(tag)];
        in_flight.erase(tag);
        nlohmann::json j = {
            {"workload", it.workload.identity}, {"hash", it.record.schedule_hash},
            {"source", it.record.source},       {"stored_s", *it.record.runtime_min_s},
            {"runs_s", m.round_best_s},         {"minflt_per_run", m.round_minflt},
            {"busy_fraction", m.round_busy}};
        // Where the stored label was timed, where it is timed now: another machine kind's
        // labels re-timed here measure transfer, not noise.
        const std::string stored_host = machine_string_host(it.workload.machine);
        if (!stored_host.empty()) j["stored_host"] = stored_host;
        j["host"] = host;
        if (m.error) j["error"] = *m.error;
        out << j.dump() << "\n";
        out.flush();
        sum.records++;
        if (m.error) sum.failed++;
        if (!opt.quiet)
            std::fprintf(stderr, "[%lld/%zu] %s %s: stored %.4g ms, now %s\n",
                         (long long)sum.records, items.size(), it.workload.identity.c_str(),
                         it.record.source.c_str(), *it.record.runtime_min_s * 1e3,
                         m.error ? m.error->c_str()
                                 : (std::to_string(*m.min_s * 1e3).substr(0, 7) + " ms").c_str());
    };
    while (next < items.size() || !pool.empty()) {
        while (!pool.full() && next < items.size()) {
            const Item &it = items[next];
            if (!runtimes.count(it.workload.target))
                runtimes[it.workload.target] = build_runtime(
                    it.workload.target, dir + "/runtime" + std::to_string(runtimes.size()));
            MeasureSpec spec;
            spec.workload = it.rw;
            spec.target = it.workload.target;
            spec.machine = parse_machine_string(it.workload.machine);
            spec.schedule_text = it.record.schedule_text;
            spec.setup = setup;
            spec.setup.runtime_so = runtimes[it.workload.target];
            spec.timing = opt.timing;
            spec.rounds = opt.rounds;
            in_flight[int64_t(next)] = next;
            pool.start(int64_t(next), spec);
            next++;
        }
        for (auto &[tag, m] : pool.wait())
            finish(tag, m);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    sum.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return sum;
}

} // namespace sextant
