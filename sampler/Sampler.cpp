#include "Sampler.h"

#include "featurizer/Schema.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/ChildJobs.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <optional>
#include <stdexcept>

#ifndef SEXTANT_VERSION
#define SEXTANT_VERSION "unknown"
#endif
#ifndef SEXTANT_TIME_EXE
#define SEXTANT_TIME_EXE "sextant-time"
#endif

namespace sextant {

namespace {

std::string format_duration(double s) {
    char buf[64];
    if (s < 120)
        std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 7200)
        std::snprintf(buf, sizeof buf, "%.0fm", s / 60);
    else
        std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
    return buf;
}

/** One schedule to measure. */
struct Job {
    uint64_t seed;
    RandomWorkload workload;
    int64_t workload_id;
    SearchCandidate candidate;
};

class SamplerRun {
public:
    SamplerRun(SampleStore &store, const SamplerOptions &opt)
        : store_(store), opt_(opt), pool_(opt.jobs), seed_(opt.from) {
        target_ = random_pipelines::default_run_target().to_string();
        machine_ = host_machine(opt.parallelism, opt.llc_bytes);
        machine_str_ = machine_string(machine_, host_description());
        threads_ = opt.timing.threads > 0 ? opt.timing.threads : machine_.parallelism;
        slots_total_ = int64_t(opt.to - opt.from) * opt.per_pipeline;
        candidates_ = opt.candidates;
        candidates_.count = opt.per_pipeline;
        setup_.time_exe = opt.time_exe.empty() ? SEXTANT_TIME_EXE : opt.time_exe;
        if (opt.work_dir.empty()) {
            setup_.work_dir = make_work_dir("sextant-sample");
            own_work_dir_ = true;
        } else {
            setup_.work_dir = opt.work_dir;
            std::filesystem::create_directories(setup_.work_dir);
        }
        // Halide's runtime for the target, once: every schedule is compiled without it.
        setup_.runtime_so = build_runtime(target_, setup_.work_dir + "/runtime", setup_.linker);
    }
    ~SamplerRun() {
        std::error_code ec;
        if (own_work_dir_) std::filesystem::remove_all(setup_.work_dir, ec);
    }

    SamplerSummary run();

private:
    void report(uint64_t seed, const std::string &what);
    void prepare_next();
    void start_jobs();
    void finish(int64_t tag, const Measurement &m);
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

    SampleStore &store_;
    const SamplerOptions &opt_;
    MeasurePool pool_;
    uint64_t seed_;
    std::string target_, machine_str_;
    MachineInfo machine_;
    CandidateSearchOptions candidates_;
    TimingSetup setup_;
    bool own_work_dir_ = false;
    int threads_ = 1;
    int64_t slots_total_ = 0, slots_done_ = 0;
    std::deque<Job> pending_;
    std::map<int64_t, Job> in_flight_;
    int64_t next_tag_ = 0;
    SamplerSummary sum_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void SamplerRun::report(uint64_t seed, const std::string &what) {
    if (opt_.quiet) return;
    sum_.seconds = elapsed();
    double rate = sum_.per_hour();
    double eta = rate > 0 ? double(slots_total_ - slots_done_) / rate * 3600 : 0;
    std::fprintf(stderr,
                 "[%lld/%lld] seed %llu: %s | measured %lld (%lld failed), skipped %lld | "
                 "%.0f samples/h | ETA %s\n",
                 (long long)slots_done_, (long long)slots_total_, (unsigned long long)seed,
                 what.c_str(), (long long)sum_.measured, (long long)sum_.failed,
                 (long long)sum_.skipped, rate, rate > 0 ? format_duration(eta).c_str() : "?");
}

// Searches the next pipeline's candidates and queues those not stored yet.
void SamplerRun::prepare_next() {
    uint64_t s = seed_++;
    RandomWorkload rw{s, opt_.generator};
    WorkloadInfo w;
    w.kind = "random";
    w.target = target_;
    w.machine = machine_str_;
    w.options = random_workload_json(rw);
    w.sextant_version = SEXTANT_VERSION;
    w.featurizer_version = kFeatureSchemaVersion;
    try {
        w.identity = random_identity(rw);
    } catch (const std::exception &e) {
        sum_.pipelines_failed++;
        slots_done_ += opt_.per_pipeline;
        report(s, std::string("cannot plan pipeline: ") + e.what());
        return;
    }
    std::optional<WorkloadInfo> existing = find_recorded_workload(store_, w);
    int64_t have = existing ? store_.count_records(existing->id) : 0;
    if (have >= opt_.per_pipeline) {
        sum_.skipped += have;
        slots_done_ += opt_.per_pipeline;
        report(s, "complete (" + std::to_string(have) + " records)");
        return;
    }
    CandidateResult cands =
        candidates_for(rw, target_, machine_, candidates_, opt_.search_timeout_s, opt_.weights);
    sum_.search_s += cands.wall_s;
    if (!opt_.quiet)
        std::fprintf(stderr, "seed %llu: %zu distinct schedules in %.2f s (have %lld)\n",
                     (unsigned long long)s, cands.candidates.size(), cands.wall_s, (long long)have);
    if (cands.error) {
        sum_.pipelines_failed++;
        slots_done_ += opt_.per_pipeline;
        report(s, "candidate search failed: " + *cands.error);
        return;
    }
    int64_t wid = existing ? existing->id : store_.upsert_workload(w);
    int queued = 0;
    for (const SearchCandidate &c : cands.candidates) {
        if (queued >= opt_.per_pipeline - have) break;
        if (store_.has_record(wid, c.hash)) {
            sum_.skipped++;
            continue;
        }
        pending_.push_back({s, rw, wid, c});
        queued++;
    }
    // Every slot of this pipeline not measured below is done now (stored already, or the
    // search found fewer distinct schedules than asked for).
    slots_done_ += opt_.per_pipeline - queued;
}

void SamplerRun::start_jobs() {
    while (!pool_.full() && !pending_.empty()) {
        Job job = pending_.front();
        pending_.pop_front();
        MeasureSpec spec;
        spec.workload = job.workload;
        spec.target = target_;
        spec.machine = machine_;
        spec.schedule_text = job.candidate.text;
        spec.setup = setup_;
        spec.timing = opt_.timing;
        spec.timing.threads = threads_;
        spec.rounds = opt_.processes;
        spec.keep_stderr = opt_.verbose;
        auto inj = opt_.inject.find(next_tag_);
        if (inj != opt_.inject.end()) spec.inject = inj->second;
        in_flight_.emplace(next_tag_, job);
        pool_.start(next_tag_, spec);
        next_tag_++;
    }
}

void SamplerRun::finish(int64_t tag, const Measurement &m) {
    Job job = in_flight_.at(tag);
    in_flight_.erase(tag);
    const SearchCandidate &c = job.candidate;
    SampleRecord r;
    r.workload_id = job.workload_id;
    r.schedule_text = c.text;
    r.schedule_hash = c.hash;
    r.source = c.source;
    r.runtime_min_s = m.min_s;
    r.runtime_median_s = m.median_s;
    r.repeats = m.repeats;
    r.compile_s = m.compile_s;
    r.error = m.error;
    r.featurizer_version = kFeatureSchemaVersion;
    if (!m.error) r.minflt_per_run = m.minflt_per_run;
    store_.add_record(r);
    sum_.measured++;
    slots_done_++;
    sum_.measure_s += m.wall_s;
    sum_.compile_s += m.compile_s;
    sum_.time_s += m.time_s;
    sum_.busy_retries += m.busy_retries;
    if (m.error) sum_.failed++;
    char what[2200];
    if (m.error)
        std::snprintf(what, sizeof what, "%s FAILED: %.2000s", c.source.c_str(), m.error->c_str());
    else {
        std::string processes;
        if (m.round_best_s.size() > 1) {
            // --processes: each process's best, the label their minimum.
            processes = ", processes";
            char ms[32];
            for (size_t k = 0; k < m.round_best_s.size(); k++) {
                std::snprintf(ms, sizeof ms, "%s%.3f", k ? "/" : " ", m.round_best_s[k] * 1e3);
                processes += ms;
            }
            processes += " ms";
        }
        std::snprintf(what, sizeof what,
                      "%s %.3f ms (median %.3f, %d runs, %.0f faults/run%s%s), compile %.2f s",
                      c.source.c_str(), *m.min_s * 1e3, *m.median_s * 1e3, m.repeats,
                      m.minflt_per_run, m.busy_retries ? ", busy: retried" : "", processes.c_str(),
                      m.compile_s);
    }
    report(job.seed, what);
}

SamplerSummary SamplerRun::run() {
    std::fprintf(stderr,
                 "sextant-sample: seeds [%llu, %llu) x %d schedules, <= %d timed runs, %d threads, "
                 "%d jobs, target %s, machine %s, db %s\n",
                 (unsigned long long)opt_.from, (unsigned long long)opt_.to, opt_.per_pipeline,
                 opt_.timing.repeats, threads_, opt_.jobs, target_.c_str(), machine_str_.c_str(),
                 store_.path().c_str());
    for (;;) {
        // Keep enough measurements queued to fill the pool. Timings happen only inside
        // pool_.wait(), so the search never disturbs one; compiles may go on beside it.
        while (pending_.size() < size_t(opt_.jobs) && seed_ < opt_.to)
            prepare_next();
        start_jobs();
        if (pool_.empty()) {
            if (pending_.empty() && seed_ >= opt_.to) break;
            continue;
        }
        for (auto &[tag, m] : pool_.wait())
            finish(tag, m);
    }
    sum_.seconds = elapsed();
    return sum_;
}

} // namespace

SamplerSummary run_sampler(SampleStore &store, const SamplerOptions &opt) {
    SamplerRun run(store, opt);
    return run.run();
}

} // namespace sextant
