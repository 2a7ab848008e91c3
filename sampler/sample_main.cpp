// sextant-sample: makes measured training data. For each random pipeline seed in [from, to) it
// makes up to K distinct schedules (beam search, greedy, greedy with dropout), benchmarks each
// one in its own child process, one at a time, and stores the runtime (or the error) in a
// SampleStore. Resumable: schedules already stored are not measured again. Also exports the
// store as training JSON lines and exports/imports the store itself. See docs/SAMPLING.md.
#include "featurizer/Schema.h"
#include "plugin/dag/Errors.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/Measure.h"
#include "sampler/SampleStore.h"
#include "sampler/TrainingExport.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <vector>

#ifndef SEXTANT_VERSION
#define SEXTANT_VERSION "unknown"
#endif

namespace {

using namespace sextant;

const char *kUsage =
    "usage: sextant-sample --db FILE [--from A --to B] [options]\n"
    "  --from A --to B        random pipeline seeds [A, B) to sample\n"
    "  --per-pipeline K       distinct schedules per pipeline (10)\n"
    "  --repeats R            timed runs per schedule, after one warm-up (5)\n"
    "  --timeout S            seconds per benchmark (compile + runs) before it is killed (60)\n"
    "  --search-timeout S     seconds for one pipeline's candidate searches (300)\n"
    "  --jobs J               benchmark children at once (1): their JIT compiles overlap, but\n"
    "                         while one is timed all others are stopped (SIGSTOP)\n"
    "  --threads T            Halide threads in each benchmark (default: --parallelism)\n"
    "  --parallelism P        cores the schedules target (default: all online CPUs)\n"
    "  --beam B --passes P    beam search of the first candidate (32, 5)\n"
    "  --max-stages N --max-work W --max-extent E   random pipeline generator options\n"
    "  --export FILE          write the whole store as JSON lines (after sampling)\n"
    "  --import FILE          add the records of an exported file (before sampling)\n"
    "  --export-training FILE re-featurize every successful record into trainer JSON lines\n"
    "  --inject KIND@N,...    test hook: make the N-th measurement of this run KIND\n"
    "                         (crash | hang | error)\n"
    "  --quiet                no per-sample progress lines\n"
    "  --verbose              let benchmark children write to stderr\n";

struct Options {
    std::string db;
    bool have_range = false;
    uint64_t from = 0, to = 0;
    int per_pipeline = 10;
    int repeats = 5;
    double timeout_s = 60;
    double search_timeout_s = 300;
    int jobs = 1;
    int threads = 0;
    int parallelism = 0;
    CandidateOptions candidates;
    random_pipelines::RandomPipelineOptions generator;
    std::string export_path, import_path, export_training_path;
    std::map<int64_t, std::string> inject;
    bool quiet = false, verbose = false;
};

Options parse_args(int argc, char **argv) {
    Options o;
    bool have_from = false, have_to = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw UserError(a + " needs a value\n" + kUsage);
            return argv[++i];
        };
        auto num = [&](const std::string &v) -> double {
            try {
                size_t used = 0;
                double d = std::stod(v, &used);
                if (used != v.size()) throw std::invalid_argument(v);
                return d;
            } catch (const std::exception &) {
                throw UserError(a + ": '" + v + "' is not a number");
            }
        };
        if (a == "--db") o.db = next();
        else if (a == "--from") o.from = uint64_t(num(next())), have_from = true;
        else if (a == "--to") o.to = uint64_t(num(next())), have_to = true;
        else if (a == "--per-pipeline") o.per_pipeline = int(num(next()));
        else if (a == "--repeats") o.repeats = int(num(next()));
        else if (a == "--timeout") o.timeout_s = num(next());
        else if (a == "--search-timeout") o.search_timeout_s = num(next());
        else if (a == "--jobs") o.jobs = int(num(next()));
        else if (a == "--threads") o.threads = int(num(next()));
        else if (a == "--parallelism") o.parallelism = int(num(next()));
        else if (a == "--beam") o.candidates.beam_size = int(num(next()));
        else if (a == "--passes") o.candidates.num_passes = int(num(next()));
        else if (a == "--max-stages") o.generator.max_stages = int(num(next()));
        else if (a == "--max-work") o.generator.max_work = num(next());
        else if (a == "--max-extent") o.generator.max_extent = int(num(next()));
        else if (a == "--export") o.export_path = next();
        else if (a == "--import") o.import_path = next();
        else if (a == "--export-training") o.export_training_path = next();
        else if (a == "--quiet") o.quiet = true;
        else if (a == "--verbose") o.verbose = true;
        else if (a == "--inject") {
            std::string spec = next();
            size_t pos = 0;
            while (pos <= spec.size()) {
                size_t comma = spec.find(',', pos);
                std::string item = spec.substr(pos, comma == std::string::npos ? comma : comma - pos);
                size_t at = item.find('@');
                std::string kind = item.substr(0, at);
                if (at == std::string::npos || (kind != "crash" && kind != "hang" && kind != "error"))
                    throw UserError("--inject: expected KIND@N with KIND crash|hang|error, got '" +
                                    item + "'");
                o.inject[int64_t(num(item.substr(at + 1)))] = kind;
                if (comma == std::string::npos) break;
                pos = comma + 1;
            }
        } else if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else {
            throw UserError("unknown argument '" + a + "'\n" + kUsage);
        }
    }
    if (o.db.empty()) throw UserError(std::string("--db is required\n") + kUsage);
    if (have_from != have_to) throw UserError("--from and --to go together");
    o.have_range = have_from;
    if (o.have_range && o.to < o.from) throw UserError("--to must not be less than --from");
    if (o.per_pipeline < 1) throw UserError("--per-pipeline must be at least 1");
    if (o.repeats < 1) throw UserError("--repeats must be at least 1");
    if (o.jobs < 1) throw UserError("--jobs must be at least 1");
    o.candidates.count = o.per_pipeline;
    return o;
}

std::string format_duration(double s) {
    char buf[64];
    if (s < 120) std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 7200) std::snprintf(buf, sizeof buf, "%.0fm", s / 60);
    else std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
    return buf;
}

struct Progress {
    int64_t slots_total = 0, slots_done = 0;
    int64_t measured = 0, failed = 0, skipped = 0, pipelines_failed = 0;
    double search_s = 0;  ///< candidate-search children, wall
    double measure_s = 0; ///< benchmark children, wall (build + compile + runs)
    double compile_s = 0; ///< of which JIT compile
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    double elapsed() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    double per_hour() const { return elapsed() > 0 ? measured / elapsed() * 3600 : 0; }
};

int sample(SampleStore &store, const Options &o) {
    Halide::Target target = random_pipelines::default_run_target();
    std::string target_string = target.to_string();
    MachineInfo machine = host_machine(o.parallelism);
    std::string machine_str = machine_string(machine);
    int threads = o.threads > 0 ? o.threads : machine.parallelism;
    Progress pr;
    pr.slots_total = int64_t(o.to - o.from) * o.per_pipeline;
    std::fprintf(stderr,
                 "sextant-sample: seeds [%llu, %llu) x %d schedules, %d repeats, %d threads, "
                 "target %s, machine %s, db %s\n",
                 (unsigned long long)o.from, (unsigned long long)o.to, o.per_pipeline, o.repeats,
                 threads, target_string.c_str(), machine_str.c_str(), store.path().c_str());
    auto report = [&](uint64_t seed, const std::string &what) {
        if (o.quiet) return;
        double rate = pr.per_hour();
        double eta = rate > 0 ? double(pr.slots_total - pr.slots_done) / rate * 3600 : 0;
        std::fprintf(stderr,
                     "[%lld/%lld] seed %llu: %s | measured %lld (%lld failed), skipped %lld | "
                     "%.0f samples/h | ETA %s\n",
                     (long long)pr.slots_done, (long long)pr.slots_total, (unsigned long long)seed,
                     what.c_str(), (long long)pr.measured, (long long)pr.failed,
                     (long long)pr.skipped, rate, rate > 0 ? format_duration(eta).c_str() : "?");
    };
    // A job is one schedule to measure; jobs of a pipeline are queued after its search.
    struct Job {
        uint64_t seed;
        RandomWorkload workload;
        int64_t workload_id;
        Candidate candidate;
    };
    std::deque<Job> pending;
    std::map<int64_t, Job> in_flight;
    int64_t next_tag = 0;
    MeasurePool pool(o.jobs);
    uint64_t seed = o.from;

    // Searches the next pipeline's candidates and queues those not stored yet.
    auto prepare_next = [&]() {
        uint64_t s = seed++;
        RandomWorkload rw{s, o.generator};
        WorkloadInfo w;
        w.kind = "random";
        w.target = target_string;
        w.machine = machine_str;
        w.options = random_workload_json(rw);
        w.sextant_version = SEXTANT_VERSION;
        w.featurizer_version = kFeatureSchemaVersion;
        try {
            w.identity = random_identity(rw);
        } catch (const std::exception &e) {
            pr.pipelines_failed++;
            pr.slots_done += o.per_pipeline;
            report(s, std::string("cannot plan pipeline: ") + e.what());
            return;
        }
        std::optional<WorkloadInfo> existing = store.find_workload(w.identity, w.target, w.machine);
        int64_t have = existing ? store.count_records(existing->id) : 0;
        if (have >= o.per_pipeline) {
            pr.skipped += have;
            pr.slots_done += o.per_pipeline;
            report(s, "complete (" + std::to_string(have) + " records)");
            return;
        }
        CandidateResult cands = candidates_for(rw, target_string, machine, o.candidates,
                                               o.search_timeout_s);
        pr.search_s += cands.wall_s;
        if (!o.quiet)
            std::fprintf(stderr, "seed %llu: %zu distinct schedules in %.2f s (have %lld)\n",
                         (unsigned long long)s, cands.candidates.size(), cands.wall_s,
                         (long long)have);
        if (cands.error) {
            pr.pipelines_failed++;
            pr.slots_done += o.per_pipeline;
            report(s, "candidate search failed: " + *cands.error);
            return;
        }
        int64_t wid = existing ? existing->id : store.upsert_workload(w);
        int queued = 0;
        for (const Candidate &c : cands.candidates) {
            if (store.has_record(wid, c.hash)) {
                pr.skipped++;
                continue;
            }
            pending.push_back({s, rw, wid, c});
            queued++;
        }
        // Every slot of this pipeline not measured below is done now (stored already, or the
        // search found fewer distinct schedules than asked for).
        pr.slots_done += o.per_pipeline - queued;
    };

    auto finish = [&](int64_t tag, const Measurement &m) {
        Job job = in_flight.at(tag);
        in_flight.erase(tag);
        const Candidate &c = job.candidate;
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
        store.add_record(r);
        pr.measured++;
        pr.slots_done++;
        pr.measure_s += m.wall_s;
        pr.compile_s += m.compile_s;
        if (m.error) pr.failed++;
        char what[2200];
        if (m.error)
            std::snprintf(what, sizeof what, "%s FAILED: %.2000s", c.source.c_str(),
                          m.error->c_str());
        else
            std::snprintf(what, sizeof what, "%s %.3f ms (median %.3f), compile %.2f s",
                          c.source.c_str(), *m.min_s * 1e3, *m.median_s * 1e3, m.compile_s);
        report(job.seed, what);
    };

    for (;;) {
        // Keep enough measurements queued to fill the pool. The search runs while no child is
        // timing (hold), so it never disturbs a timing; compiles may go on beside it.
        while (pending.size() < size_t(o.jobs) && seed < o.to) {
            pool.set_hold(true);
            while (pool.timing())
                for (auto &[tag, m] : pool.wait()) finish(tag, m);
            prepare_next();
            pool.set_hold(false);
        }
        while (!pool.full() && !pending.empty()) {
            Job job = pending.front();
            pending.pop_front();
            MeasureSpec spec;
            spec.workload = job.workload;
            spec.target = target_string;
            spec.machine = machine;
            spec.schedule_text = job.candidate.text;
            spec.repeats = o.repeats;
            spec.threads = threads;
            spec.timeout_s = o.timeout_s;
            spec.keep_stderr = o.verbose;
            auto inj = o.inject.find(next_tag);
            if (inj != o.inject.end()) spec.inject = inj->second;
            in_flight.emplace(next_tag, job);
            pool.start(next_tag, spec);
            next_tag++;
        }
        if (pool.empty()) {
            if (pending.empty() && seed >= o.to) break;
            continue;
        }
        for (auto &[tag, m] : pool.wait()) finish(tag, m);
    }
    double el = pr.elapsed();
    StoreCounts c = store.counts();
    std::printf("measured %lld new records (%lld failed), skipped %lld already stored, "
                "%lld pipelines failed, in %.1f s: %.0f samples/hour\n",
                (long long)pr.measured, (long long)pr.failed, (long long)pr.skipped,
                (long long)pr.pipelines_failed, el, pr.per_hour());
    std::printf("time: candidate search %.1f s, benchmark children %.1f s (JIT compile %.1f s)%s\n",
                pr.search_s, pr.measure_s, pr.compile_s,
                o.jobs > 1 ? ", summed over overlapping children" : "");
    std::printf("store %s: %lld workloads, %lld records (%lld failed)\n", store.path().c_str(),
                (long long)c.workloads, (long long)c.records, (long long)c.failed);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    try {
        Options o = parse_args(argc, argv);
        SampleStore store(o.db);
        if (!o.import_path.empty()) {
            int64_t n = store.import_jsonl(o.import_path);
            std::printf("imported %lld new records from %s\n", (long long)n, o.import_path.c_str());
        }
        if (o.have_range) sample(store, o);
        if (!o.export_path.empty()) {
            int64_t n = store.export_jsonl(o.export_path);
            std::printf("exported %lld records to %s\n", (long long)n, o.export_path.c_str());
        }
        if (!o.export_training_path.empty()) {
            TrainingExportStats s = export_training(store, o.export_training_path);
            for (const std::string &w : s.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
            std::printf("exported %lld training samples to %s (%lld failed records left out, "
                        "%lld records and %lld workloads could not be re-featurized)\n",
                        (long long)s.samples, o.export_training_path.c_str(),
                        (long long)s.failed_records, (long long)s.skipped_records,
                        (long long)s.skipped_workloads);
        }
        return 0;
    } catch (const UserError &e) {
        std::fprintf(stderr, "sextant-sample: %s\n", e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sextant-sample: internal error: %s\n", e.what());
        return 1;
    }
}
