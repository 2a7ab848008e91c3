#include "sampler/Regret.h"

#include "measure/Protocol.h"
#include "plugin/Params.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/ChildJobs.h"
#include "sampler/RandomWorkload.h"
#include "support/Errors.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#ifndef SEXTANT_TIME_EXE
#define SEXTANT_TIME_EXE "sextant-time"
#endif

namespace sextant {

namespace {

/** One distinct schedule of a pipeline and the roles it plays (one text can be both picks). */
struct Entry {
    std::vector<std::string> roles; ///< "analytical", "learned", "best_known"
    std::string source, text, hash;
    CompiledSchedule compiled;
    std::vector<double> round_best_s;
    double time_s = 0; ///< median over rounds of the round's best; 0 if it failed
    std::string error;
};

/** Seeds the output already has for these weights. */
std::set<uint64_t> seeds_done(const std::string &path, const std::string &weights) {
    std::set<uint64_t> done;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        try {
            nlohmann::json j = nlohmann::json::parse(line);
            if (j.value("weights", std::string()) == weights)
                done.insert(j.at("seed").get<uint64_t>());
        } catch (const nlohmann::json::exception &) {
            // a line cut short by an interrupted run: that seed is judged again
        }
    }
    return done;
}

/** The fastest successful record of the workload in `store`, if any. */
std::optional<SampleRecord> best_known(SampleStore &store, const WorkloadInfo &w) {
    std::optional<WorkloadInfo> found = find_recorded_workload(store, w);
    if (!found) return std::nullopt;
    std::optional<SampleRecord> best;
    for (SampleRecord &r : store.records(found->id))
        if (r.ok() && r.runtime_min_s && (!best || *r.runtime_min_s < *best->runtime_min_s))
            best = std::move(r);
    return best;
}

void add_entry(std::vector<Entry> &entries, const std::string &role, const std::string &source,
               const std::string &text, const std::string &hash) {
    for (Entry &e : entries)
        if (e.hash == hash) {
            e.roles.push_back(role);
            return;
        }
    Entry e;
    e.roles = {role};
    e.source = source;
    e.text = text;
    e.hash = hash;
    entries.push_back(std::move(e));
}

} // namespace

BeamSearchOptions regret_search(const BeamSearchOptions &sampler) {
    BeamSearchOptions o = Params::default_search();
    o.beam_size = sampler.beam_size;
    o.num_passes = sampler.num_passes;
    o.time_limit_s = sampler.time_limit_s;
    return o;
}

namespace {

class RegretRun {
public:
    RegretRun(const RegretOptions &opt, SampleStore *best_known)
        : opt_(opt), best_store_(best_known) {
        target_ = random_pipelines::default_run_target().to_string();
        machine_ = host_machine(opt.parallelism, opt.llc_bytes);
        machine_str_ = machine_string(machine_, host_description());
        search_.count = 1; // the beam-search pick alone
        search_.first = regret_search(opt.search);
        // Polished as the plugin polishes its pick (and, in learned mode, each candidate).
        const Params plugin_defaults;
        search_.polish_margin = plugin_defaults.polish ? plugin_defaults.polish_margin : -1;
        search_.trust_margin =
            opt.learned_margin >= 0 ? opt.learned_margin : plugin_defaults.learned_margin;
        setup_.time_exe = opt.time_exe.empty() ? SEXTANT_TIME_EXE : opt.time_exe;
        setup_.work_dir = make_work_dir("sextant-regret");
        setup_.runtime_so = build_runtime(target_, setup_.work_dir + "/runtime", setup_.linker);
    }
    ~RegretRun() {
        std::error_code ec;
        std::filesystem::remove_all(setup_.work_dir, ec);
    }

    /** Judges one seed; the JSON line written. */
    nlohmann::json judge(uint64_t seed);

private:
    /** The first candidate of a search, or the error. */
    std::optional<SearchCandidate> pick(const RandomWorkload &rw, const std::string &weights,
                                        std::string &error) {
        CandidateSearchOptions so = search_;
        if (!weights.empty()) so.ranked = opt_.learned_candidates;
        CandidateResult c =
            candidates_for(rw, target_, machine_, so, opt_.search_timeout_s, weights);
        if (c.error || c.candidates.empty()) {
            error = c.error ? *c.error : "the search found no schedule";
            return std::nullopt;
        }
        return c.candidates[0];
    }

    const RegretOptions &opt_;
    std::string target_, machine_str_;
    MachineInfo machine_;
    CandidateSearchOptions search_;
    TimingSetup setup_;
    SampleStore *best_store_;
};

nlohmann::json RegretRun::judge(uint64_t seed) {
    RandomWorkload rw{seed, opt_.generator};
    WorkloadInfo w;
    w.identity = random_identity(rw);
    w.target = target_;
    w.machine = machine_str_;
    nlohmann::json out = {{"seed", seed},
                          {"identity", w.identity},
                          {"weights", opt_.weights},
                          {"learned_candidates", opt_.learned_candidates},
                          {"learned_margin", search_.trust_margin}};

    std::vector<Entry> entries;
    std::string error;
    std::optional<SearchCandidate> a = pick(rw, "", error);
    if (!a) {
        out["error"] = "analytical search: " + error;
        return out;
    }
    add_entry(entries, "analytical", a->source, a->text, a->hash);
    std::optional<SearchCandidate> l = pick(rw, opt_.weights, error);
    if (!l) {
        out["error"] = "learned search: " + error;
        return out;
    }
    add_entry(entries, "learned", l->source, l->text, l->hash);
    if (best_store_)
        if (std::optional<SampleRecord> b = best_known(*best_store_, w))
            add_entry(entries, "best_known", b->source, b->schedule_text, b->schedule_hash);

    MeasureSpec spec;
    spec.workload = rw;
    spec.target = target_;
    spec.machine = machine_;
    spec.setup = setup_;
    spec.timing = opt_.timing;
    std::vector<Subject> subjects;
    std::vector<Entry *> timed;
    for (size_t k = 0; k < entries.size(); k++) {
        Entry &e = entries[k];
        spec.schedule_text = e.text;
        e.compiled = compile_schedule(spec, setup_.work_dir + "/s" + std::to_string(seed) + "-" +
                                                std::to_string(k));
        if (!e.compiled.ok()) {
            e.error = *e.compiled.error;
            continue;
        }
        subjects.push_back(timed_subject(spec, e.compiled));
        timed.push_back(&e);
    }
    std::vector<SubjectResult> results =
        measure_interleaved(subjects, opt_.timing.protocol(opt_.rounds, opt_.timing.timeout_s));
    for (size_t i = 0; i < timed.size(); i++) {
        const SubjectResult &r = results[i];
        if (!r.ok()) {
            timed[i]->error = r.error.empty() ? failure_kind_name(r.kind) : r.error;
            continue;
        }
        for (const TimedRuns &t : r.rounds)
            timed[i]->round_best_s.push_back(t.best_s());
        timed[i]->time_s = r.round_best_median_s();
    }
    std::error_code ec;
    for (size_t k = 0; k < entries.size(); k++)
        std::filesystem::remove_all(
            setup_.work_dir + "/s" + std::to_string(seed) + "-" + std::to_string(k), ec);

    nlohmann::json list = nlohmann::json::array();
    double best = 0;
    std::map<std::string, double> by_role;
    for (const Entry &e : entries) {
        nlohmann::json j = {{"roles", e.roles},
                            {"source", e.source},
                            {"hash", e.hash},
                            {"compile_s", e.compiled.compile_s},
                            {"round_best_s", e.round_best_s},
                            {"time_s", e.time_s}};
        if (!e.error.empty()) j["error"] = e.error;
        list.push_back(j);
        if (e.time_s > 0 && (best == 0 || e.time_s < best)) best = e.time_s;
        for (const std::string &role : e.roles)
            by_role[role] = e.time_s;
    }
    out["schedules"] = list;
    const double an = by_role["analytical"], le = by_role["learned"];
    if (an > 0 && le > 0 && best > 0) {
        out["best_s"] = best;
        out["learned_over_analytical"] = le / an;
        out["learned_regret"] = le / best;
        out["analytical_regret"] = an / best;
    } else {
        out["error"] = "a pick did not compile or run";
    }
    return out;
}

} // namespace

RegretSummary run_regret(const RegretOptions &opt, SampleStore *best_known) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    if (opt.weights.empty()) throw UserError("regret: --weights is required (the model judged)");
    if (opt.out_path.empty()) throw UserError("regret: an output file is required");
    RegretSummary sum;
    std::set<uint64_t> done = seeds_done(opt.out_path, opt.weights);
    RegretRun run(opt, best_known);
    std::ofstream out(opt.out_path, std::ios::app);
    if (!out) throw UserError("regret: cannot write " + opt.out_path);
    for (uint64_t s = opt.from; s < opt.to; s++) {
        if ((opt.half == 1 && s % 2 != 0) || (opt.half == 2 && s % 2 == 0)) continue;
        if (done.count(s)) {
            sum.skipped++;
            continue;
        }
        nlohmann::json j = run.judge(s);
        out << j.dump() << "\n" << std::flush;
        sum.pipelines++;
        if (j.contains("error")) sum.failed++;
        if (!opt.quiet) {
            if (j.contains("error"))
                std::fprintf(stderr, "[%llu] seed %llu: %s\n",
                             (unsigned long long)(s - opt.from + 1), (unsigned long long)s,
                             j["error"].get<std::string>().c_str());
            else
                std::fprintf(stderr,
                             "[%llu] seed %llu: learned/analytical %.3f, regret learned %.3f "
                             "analytical %.3f (%zu schedules)\n",
                             (unsigned long long)(s - opt.from + 1), (unsigned long long)s,
                             j["learned_over_analytical"].get<double>(),
                             j["learned_regret"].get<double>(),
                             j["analytical_regret"].get<double>(), j["schedules"].size());
        }
    }
    sum.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return sum;
}

} // namespace sextant
