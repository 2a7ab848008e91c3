#include "Autotune.h"

#include "featurizer/Schema.h"
#include "measure/Protocol.h"
#include "sampler/SampleStore.h"
#include "support/Errors.h"
#include "support/Files.h"
#include "tools/autotune/AutotunerImpl.h"
#include "tools/autotune/Files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

namespace sextant {

double also_build_timeout_s(const AutotuneOptions &opt) {
    if (opt.time_budget_s <= 0) return opt.build_timeout_s;
    return std::min(opt.build_timeout_s, std::max(30.0, opt.time_budget_s / 4));
}

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace autotune_detail {

std::vector<std::string> Autotuner::generator_command(const fs::path &out_dir,
                                                      const std::string &emit,
                                                      const std::string &scheduler_plugin,
                                                      const std::string &scheduler_name) const {
    std::vector<std::string> cmd = {opt_.generator,
                                    "-g",
                                    opt_.generator_name,
                                    "-o",
                                    out_dir.string(),
                                    "-f",
                                    "pipeline",
                                    "-e",
                                    emit,
                                    "-p",
                                    scheduler_plugin.empty() ? opt_.plugin : scheduler_plugin,
                                    "-s",
                                    scheduler_name.empty() ? "Sextant" : scheduler_name,
                                    "target=" + opt_.target,
                                    "auto_schedule=true",
                                    "machine_params=" + opt_.machine_params};
    cmd.insert(cmd.end(), opt_.generator_args.begin(), opt_.generator_args.end());
    return cmd;
}

std::map<std::string, std::string> Autotuner::model_env() const {
    fs::path tuned = dir_ / "tuned.sxw";
    if (fs::exists(tuned)) return {{"SEXTANT_COST_MODEL", "learned"}, {"SEXTANT_WEIGHTS", tuned}};
    if (!opt_.weights.empty())
        return {{"SEXTANT_COST_MODEL", "learned"}, {"SEXTANT_WEIGHTS", opt_.weights}};
    return {};
}

std::vector<Proposal> Autotuner::run_proposer(const fs::path &dir,
                                              std::map<std::string, std::string> env, int count,
                                              int seed, const std::string &log_name) {
    fs::create_directories(dir);
    fs::remove(dir / "candidates.jsonl");
    env["SEXTANT_CANDIDATES"] = dir.string();
    env["SEXTANT_NUM_CANDIDATES"] = std::to_string(count);
    env["SEXTANT_CANDIDATE_BEAM_SIZE"] = std::to_string(opt_.candidate_beam_size);
    env["SEXTANT_BEAM_SIZE"] = std::to_string(opt_.beam_size);
    env["SEXTANT_NUM_PASSES"] = std::to_string(opt_.num_passes);
    env["SEXTANT_SEED"] = std::to_string(seed);
    std::string logp = (dir_ / "logs" / (log_name + ".log")).string();
    fs::remove(logp);
    RunResult r =
        run_logged(generator_command(dir, "schedule"), env, logp, opt_.propose_timeout_s, true);
    if (!r.ok())
        throw UserError("the generator failed while Sextant proposed schedules (" + r.message +
                        "). Command: " + opt_.generator + " -g " + opt_.generator_name +
                        " ...; its output (" + logp + ") ends with:\n" + file_tail(logp, 25));
    std::vector<Proposal> out;
    for (const json &j : read_json_lines(dir / "candidates.jsonl")) {
        Proposal p;
        p.index = j.at("index");
        p.source = j.at("source");
        p.predicted_seconds = j.at("predicted_seconds");
        p.text = j.at("schedule_text");
        p.hash = schedule_hash(p.text);
        out.push_back(std::move(p));
    }
    if (out.empty()) throw UserError("Sextant proposed no schedules (see " + logp + ")");
    return out;
}

std::vector<SampleRecord> Autotuner::fastest_measured() const {
    std::vector<SampleRecord> ok;
    for (SampleRecord &r : store_->records(workload_id_))
        if (r.ok() && fs::exists(dir_ / "schedules" / (r.schedule_hash + ".txt")))
            ok.push_back(std::move(r));
    std::sort(ok.begin(), ok.end(), [](const SampleRecord &a, const SampleRecord &b) {
        return *a.runtime_min_s < *b.runtime_min_s;
    });
    // The best so far may have measured slower than a schedule that lost its duel.
    std::stable_partition(ok.begin(), ok.end(),
                          [&](const SampleRecord &r) { return r.schedule_hash == best_hash_; });
    return ok;
}

std::string Autotuner::fastest_measured_files(int n) const {
    const std::vector<SampleRecord> ok = fastest_measured();
    std::string files;
    for (size_t i = 0; i < ok.size() && int(i) < n; i++)
        files += (i ? "," : "") + (dir_ / "schedules" / (ok[i].schedule_hash + ".txt")).string();
    return files;
}

std::vector<Proposal> Autotuner::propose(int batch) {
    const fs::path bdir = dir_ / ("batch-" + std::to_string(batch));
    std::map<std::string, std::string> model = model_env();
    // From the second batch on, also mutations of the fastest schedules measured so far: one
    // Func re-placed or re-tiled, the rest completed by the model (shapes a dropout search of
    // the same model rarely reaches).
    const std::string fastest =
        opt_.mutations > 0 || opt_.tweaks > 0 ? fastest_measured_files(2) : "";
    std::map<std::string, std::string> env = model;
    if (!fastest.empty()) {
        env["SEXTANT_MUTATE"] = fastest;
        env["SEXTANT_NUM_MUTATIONS"] = std::to_string(opt_.mutations);
        env["SEXTANT_NUM_TWEAKS"] = std::to_string(opt_.tweaks);
    }
    std::vector<Proposal> out = run_proposer(bdir, env, opt_.candidates_per_batch, batch,
                                             "propose-" + std::to_string(batch));
    // Batch 0 also measures the other autoschedulers the user named, as they schedule.
    std::vector<Proposal> also;
    if (batch == 0)
        for (const std::string &entry : opt_.also)
            also.push_back(also_proposal(entry));
    if (batch != 0 || model.empty()) {
        if (batch == 0) out[0].anchor = true;
        out.insert(out.end(), also.begin(), also.end());
        return out;
    }
    // Batch 0 with a learned model: the analytical model's pick (what the plugin gives by
    // default, so the report's baseline) and the learned model's pick are both measured. On
    // held-out random pipelines the two never picked the same schedule and the faster of the
    // two ran 0.78x the analytical pick (docs/COSTMODEL.md): measuring both costs one build.
    std::vector<Proposal> analytical =
        run_proposer(bdir / "analytical", {{"SEXTANT_COST_MODEL", "analytical"}}, 1, batch,
                     "propose-0-analytical");
    Proposal base = analytical[0];
    base.source = "analytical:" + base.source;
    base.anchor = true;
    std::vector<Proposal> all = {base};
    for (Proposal &p : out) {
        if (p.hash == base.hash) continue;
        p.anchor = p.index == 0;
        p.index += 1;
        all.push_back(std::move(p));
    }
    all.insert(all.end(), also.begin(), also.end());
    return all;
}

std::vector<Proposal> Autotuner::select(int batch, const std::vector<Proposal> &all) {
    std::vector<Proposal> fresh;
    for (const Proposal &p : all)
        if (!store_->has_record(workload_id_, p.hash)) fresh.push_back(p);
    if (opt_.select == "all") return fresh;
    // Anchors first: batch 0's untuned picks (index 0, what the plugin gives by default, is
    // the baseline the report compares with).
    std::vector<Proposal> picked;
    int foreign = 0; // --also schedules come on top of --measure
    for (const Proposal &p : fresh) {
        if (!p.anchor) continue;
        picked.push_back(p);
        foreign += p.foreign();
    }
    fresh.erase(
        std::remove_if(fresh.begin(), fresh.end(), [](const Proposal &p) { return p.anchor; }),
        fresh.end());
    std::stable_sort(fresh.begin(), fresh.end(), [](const Proposal &a, const Proposal &b) {
        return a.predicted_seconds < b.predicted_seconds;
    });
    int want = std::max(0, opt_.measure_per_batch - int(picked.size()) + foreign);
    int explore = std::min(opt_.explore_per_batch, want);
    int exploit = want - explore;
    std::mt19937_64 rng(uint64_t(batch) * 7919 + 17);
    // One of the model's picks is a tweak, a hill climb's step from the fastest schedule:
    // the one the model ranks best in even batches, one drawn at random in odd ones. The model
    // predicts a schedule's neighbours within ~1% of each other (bench histogram_equalize), so
    // it would rarely rank a tweak above the other proposals, and its ranking among them is
    // biased: in session 35's histogram_equalize run it never chose the output's rows whole
    // (x:inner), the tweak that measured fastest by hand.
    std::vector<size_t> tweaks;
    for (size_t i = 0; i < fresh.size(); i++)
        if (fresh[i].source.rfind("tweak:", 0) == 0) tweaks.push_back(i);
    if (exploit > 0 && !tweaks.empty()) {
        const size_t k = batch % 2 == 0 ? tweaks[0] : tweaks[size_t(rng() % tweaks.size())];
        picked.push_back(fresh[k]);
        fresh.erase(fresh.begin() + long(k));
        exploit--;
    }
    for (int i = 0; i < exploit && !fresh.empty(); i++) {
        picked.push_back(fresh.front());
        fresh.erase(fresh.begin());
    }
    for (int i = 0; i < explore && !fresh.empty(); i++) {
        size_t k = size_t(rng() % fresh.size());
        picked.push_back(fresh[k]);
        fresh.erase(fresh.begin() + long(k));
    }
    return picked;
}

Measured Autotuner::build(const Proposal &p, const fs::path &bdir) {
    Measured m;
    fs::remove_all(bdir);
    fs::create_directories(bdir);
    if (!p.foreign()) write_file_atomically(bdir / "schedule.txt", p.text);
    std::string logp = (bdir / "build.log").string();
    auto t0 = std::chrono::steady_clock::now();
    // The generator replays the schedule into an object without the Halide runtime, linked into
    // the shared object the pipeline driver loads; another autoscheduler schedules it itself.
    std::vector<std::string> gen =
        p.foreign()
            ? generator_command(bdir, "object,schedule", p.scheduler_plugin, p.scheduler_name)
            : generator_command(bdir, "object,featurization,schedule");
    for (std::string &a : gen)
        if (a.rfind("target=", 0) == 0) a += "-no_runtime";
    gen.insert(gen.begin(), opt_.build_launcher.begin(), opt_.build_launcher.end());
    std::vector<std::string> link = opt_.build_launcher;
    link.insert(link.end(), {opt_.cxx, "-shared", "-o", (bdir / "pipeline.so").string(),
                             (bdir / "pipeline.o").string()});
    std::map<std::string, std::string> env = {
        {"SEXTANT_SCHEDULE_FILE", (bdir / "schedule.txt").string()},
        {"SEXTANT_COST_MODEL", "analytical"}};
    // Another autoscheduler gets the user's environment as it is (HL_BEAM_SIZE for Adams2019,
    // a plugin's own settings); a replay drops what could steer Sextant away from the text.
    if (p.foreign()) env.clear();
    RunResult g =
        run_logged(gen, env, logp, p.foreign() ? also_build_timeout_s(opt_) : opt_.build_timeout_s,
                   !p.foreign());
    if (!g.ok()) {
        m.kind = FailureKind::CompileError;
        m.error = "generator " + g.message + ": " + file_tail(logp, 3);
        return m;
    }
    RunResult l = run_logged(link, {}, logp, opt_.build_timeout_s);
    if (!l.ok()) {
        m.kind = FailureKind::CompileError;
        m.error = "link " + l.message + ": " + file_tail(logp, 3);
        return m;
    }
    m.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.ok = true;
    return m;
}

std::vector<Measured> Autotuner::build_all(const std::vector<Proposal> &props,
                                           const std::vector<fs::path> &dirs) {
    std::vector<Measured> out(props.size());
    std::mutex mu;
    size_t next = 0;
    auto worker = [&] {
        for (;;) {
            size_t i;
            {
                std::lock_guard<std::mutex> lock(mu);
                if (next >= props.size()) return;
                i = next++;
            }
            out[i] = build(props[i], dirs[i]);
        }
    };
    std::vector<std::thread> threads;
    for (int j = 0; j < std::max(1, opt_.jobs); j++)
        threads.emplace_back(worker);
    for (std::thread &t : threads)
        t.join();
    return out;
}

Subject Autotuner::timing_subject(const fs::path &bdir) const {
    Subject sub;
    sub.label = bdir.filename().string();
    sub.argv = {opt_.time_exe,
                "--runtime",
                runtime_so_.string(),
                "--max-runs",
                std::to_string(opt_.max_runs),
                "--budget",
                std::to_string(opt_.run_budget_s),
                "--time-one",
                (bdir / "pipeline.so").string() + ":pipeline"};
    sub.argv.insert(sub.argv.begin(), opt_.time_launcher.begin(), opt_.time_launcher.end());
    sub.env = {{"HL_NUM_THREADS", std::to_string(parallelism_)}};
    sub.drop_env = autoscheduler_env;
    sub.log_path = (bdir / "bench.log").string();
    return sub;
}

ProtocolOptions Autotuner::protocol(int rounds) const {
    ProtocolOptions p;
    p.rounds = rounds;
    p.timeout_s = opt_.bench_timeout_s;
    return p;
}

void Autotuner::benchmark(const fs::path &bdir, Measured &m) {
    SubjectResult r = measure_interleaved({timing_subject(bdir)}, protocol(opt_.repeats))[0];
    if (!r.ok()) {
        m.ok = false;
        m.kind = r.kind;
        m.error = std::string("benchmark ") + failure_kind_name(r.kind) + ": " + r.error + ": " +
                  file_tail((bdir / "bench.log").string(), 3);
        return;
    }
    m.min_s = r.best_s();
    m.median_s = r.round_best_median_s();
    m.minflt_per_run = r.minflt_per_run();
}

void Autotuner::record(int batch, const Proposal &p, const Measured &m, const fs::path &bdir,
                       const Duel &d) {
    if (m.ok) {
        // What retraining and the user need outlives the build directory.
        if (!p.foreign())
            fs::copy_file(bdir / "pipeline.featurization", dir_ / "features" / (p.hash + ".json"),
                          fs::copy_options::overwrite_existing);
        fs::copy_file(bdir / "pipeline.schedule.h", dir_ / "schedules" / (p.hash + ".schedule.h"),
                      fs::copy_options::overwrite_existing);
        if (!p.foreign()) write_file_atomically(dir_ / "schedules" / (p.hash + ".txt"), p.text);
    }
    // Another autoscheduler's schedule has no ScheduleText to learn from: it is measured and
    // logged (measurements.jsonl) but not a sample of the store.
    if (!p.foreign())
        add_sample(batch, p, m);
    else if (!m.ok)
        failures_++;
    const std::string before = best_hash_;
    after_measurement(batch, p, m, d);
    if (best_hash_ != before) keep_champion(bdir);
}

void Autotuner::add_sample(int batch, const Proposal &p, const Measured &m) {
    SampleRecord r;
    r.workload_id = workload_id_;
    r.schedule_text = p.text;
    r.schedule_hash = p.hash;
    r.source = "autotune:" + std::to_string(batch) + ":" + p.source;
    if (m.ok) {
        r.runtime_min_s = m.min_s;
        r.runtime_median_s = m.median_s;
        r.repeats = opt_.repeats;
    } else {
        r.error = m.error;
    }
    r.compile_s = m.build_s;
    r.featurizer_version = kFeatureSchemaVersion;
    store_->add_record(r);
    if (!m.ok) failures_++;
}

void Autotuner::after_measurement(int batch, const Proposal &p, const Measured &m, const Duel &d) {
    bool baseline = batch == 0 && p.index == 0 && !p.foreign();
    measurements_++;
    bool improved = false;
    if (d.held) {
        // The duel's rounds are fresh draws for both: the best's figure is the last of them.
        improved = d.won;
        best_s_ = d.won ? d.challenger_s : d.champion_s;
        if (d.won) best_hash_ = p.hash;
    } else if (m.ok && (best_s_ == 0 || m.min_s < best_s_)) {
        best_s_ = m.min_s;
        best_hash_ = p.hash;
        improved = true;
    }
    if (improved) write_best(p.hash);
    if (baseline && m.ok) baseline_s_ = m.min_s;
    json line = {
        {"n", measurements_},      {"batch", batch},
        {"index", p.index},        {"hash", p.hash},
        {"source", p.source},      {"predicted_seconds", p.predicted_seconds},
        {"baseline", baseline},    {"best_seconds", best_s_ > 0 ? json(best_s_) : json(nullptr)},
        {"best_hash", best_hash_}, {"elapsed_s", elapsed()}};
    if (d.held)
        line["duel"] = {{"rounds", opt_.confirm_rounds},
                        {"seconds", d.challenger_s > 0 ? json(d.challenger_s) : json(nullptr)},
                        {"best_seconds", d.champion_s > 0 ? json(d.champion_s) : json(nullptr)},
                        {"won", d.won}};
    if (p.foreign()) {
        line["scheduler_plugin"] = p.scheduler_plugin;
        line["scheduler_name"] = p.scheduler_name;
    }
    if (m.ok) {
        line["runtime_seconds"] = m.min_s;
        line["median_seconds"] = m.median_s;
        line["minflt_per_run"] = m.minflt_per_run;
    } else {
        line["error"] = m.error;
        line["failure_kind"] = failure_kind_name(m.kind);
    }
    append_line(dir_ / "measurements.jsonl", line.dump());
    std::string msg = "[batch " + std::to_string(batch) + "] #" + std::to_string(measurements_) +
                      " " + p.source + ": ";
    msg += !m.ok         ? "FAILED " + m.error
           : p.foreign() ? fmt_ms(m.min_s) + " (" + p.scheduler_name + "'s schedule)"
                         : fmt_ms(m.min_s) + " (predicted " + fmt_ms(p.predicted_seconds) + ")";
    msg += " | best " + (best_s_ > 0 ? fmt_ms(best_s_) : std::string("-"));
    if (baseline_s_ > 0 && best_s_ > 0) {
        char b[64];
        std::snprintf(b, sizeof(b), " (%.2fx faster than untuned)", baseline_s_ / best_s_);
        msg += b;
    }
    msg += improved ? " NEW BEST" : "";
    msg += " | " + fmt_duration(elapsed());
    log(msg);
}

void Autotuner::write_best(const std::string &hash) {
    copy_file_atomically(dir_ / "schedules" / (hash + ".schedule.h"), dir_ / "best.schedule.h");
    // best.txt replays with Sextant; another autoscheduler's best has none (best.schedule.h
    // is the result then).
    const fs::path text = dir_ / "schedules" / (hash + ".txt");
    if (fs::exists(text))
        write_file_atomically(dir_ / "best.txt", read_text(text));
    else
        fs::remove(dir_ / "best.txt");
}

AutotuneSummary Autotuner::run() {
    setup();
    int batch = int(read_json_lines(dir_ / "batches.jsonl").size());
    if (batch > 0)
        log("resuming after batch " + std::to_string(batch - 1) + ": " +
            std::to_string(measurements_) + " measurements, best " + fmt_ms(best_s_));
    while (batch < opt_.batches && !over_budget()) {
        std::vector<Proposal> all = propose(batch);
        std::vector<Proposal> picked = select(batch, all);
        log("[batch " + std::to_string(batch) + "] " + std::to_string(all.size()) +
            " candidates proposed, measuring " + std::to_string(picked.size()) + " | " +
            fmt_duration(elapsed()));
        // Build in parallel (jobs at a time), then benchmark one at a time with nothing else
        // running, in chunks so a time budget is noticed between chunks.
        size_t chunk = size_t(std::max(1, opt_.jobs)) * 2;
        for (size_t c0 = 0; c0 < picked.size() && !over_budget(); c0 += chunk) {
            size_t c1 = std::min(picked.size(), c0 + chunk);
            std::vector<Proposal> chunk_props(picked.begin() + long(c0), picked.begin() + long(c1));
            std::vector<fs::path> dirs;
            for (const Proposal &p : chunk_props)
                dirs.push_back(dir_ / "build" / p.hash);
            std::vector<Measured> results = build_all(chunk_props, dirs);
            for (size_t i = c0; i < c1; i++) {
                Measured &m = results[i - c0];
                if (m.ok) benchmark(dirs[i - c0], m);
                Duel d;
                if (opt_.confirm_rounds > 0 && challenges(m)) d = duel(dirs[i - c0]);
                record(batch, picked[i], m, dirs[i - c0], d);
                fs::remove_all(dirs[i - c0]);
            }
        }
        if (over_budget()) {
            log("time budget reached during batch " + std::to_string(batch));
            break;
        }
        fine_tune(batch);
        append_line(dir_ / "batches.jsonl",
                    json({{"batch", batch},
                          {"proposed", all.size()},
                          {"measured", picked.size()},
                          {"measurements_total", measurements_},
                          {"best_seconds", best_s_ > 0 ? json(best_s_) : json(nullptr)},
                          {"elapsed_s", elapsed()},
                          {"tuned_weights", fs::exists(dir_ / "tuned.sxw")}})
                        .dump());
        batch++;
    }
    verify_best();
    write_report();
    AutotuneSummary s;
    s.batches_done = batch;
    s.measurements = measurements_;
    s.failures = failures_;
    s.baseline_seconds = verified_base_s_ > 0 ? verified_base_s_ : baseline_s_;
    s.best_seconds = verified_best_s_ > 0 ? verified_best_s_ : best_s_;
    s.verified = verified_best_s_ > 0;
    s.best_schedule_header = (dir_ / "best.schedule.h").string();
    if (best_s_ == 0)
        throw UserError("no schedule could be measured; see the build and benchmark errors above "
                        "and the logs in " +
                        dir_.string());
    return s;
}

} // namespace autotune_detail

using autotune_detail::Autotuner;

AutotuneSummary run_autotune(const AutotuneOptions &opt) {
    Autotuner t(opt);
    return t.run();
}

std::vector<RemeasuredSchedule>
remeasure_schedules(const AutotuneOptions &opt, const std::vector<std::string> &files, int rounds) {
    Autotuner t(opt);
    return t.remeasure(files, rounds);
}

} // namespace sextant
