#include "support/Errors.h"
#include "support/Files.h"
#include "tools/autotune/AutotunerImpl.h"
#include "tools/autotune/Files.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

namespace sextant {
namespace autotune_detail {

namespace {

/** Two re-timed minima this close (relative) are a close call (Autotuner::interleaved). */
constexpr double kCloseCall = 0.05;

json remeasured_json(const std::vector<RemeasuredSchedule> &rs) {
    json j = json::array();
    for (const RemeasuredSchedule &x : rs)
        j.push_back({{"file", x.file},
                     {"min_seconds", x.min_s},
                     {"median_seconds", x.median_s},
                     {"runs_seconds", x.runs_s},
                     {"error", x.error}});
    return j;
}

/** Whether the fastest two of `rs` (those that ran) are within kCloseCall of each other. */
bool close_call(const std::vector<SubjectResult> &rs) {
    std::vector<double> mins;
    for (const SubjectResult &r : rs)
        if (r.ok()) mins.push_back(r.best_s());
    if (mins.size() < 2) return false;
    std::sort(mins.begin(), mins.end());
    return mins[1] <= mins[0] * (1 + kCloseCall);
}

} // namespace

void Autotuner::write_report() {
    std::vector<json> ms = read_json_lines(dir_ / "measurements.jsonl");
    std::vector<json> bs = read_json_lines(dir_ / "batches.jsonl");
    json rep;
    rep["workload"] = identity_;
    rep["select"] = opt_.select;
    rep["measurements"] = ms.size();
    rep["failures"] = failures_;
    rep["batches"] = bs;
    rep["baseline_seconds"] = baseline_s_ > 0 ? json(baseline_s_) : json(nullptr);
    rep["best_seconds"] = best_s_ > 0 ? json(best_s_) : json(nullptr);
    rep["best_hash"] = best_hash_;
    rep["elapsed_s"] = elapsed();
    // Measurements needed to come within 5% of the best this run found.
    int within = 0;
    for (const json &m : ms) {
        if (m.contains("runtime_seconds") && double(m["runtime_seconds"]) <= best_s_ * 1.05) {
            within = m.value("n", 0);
            break;
        }
    }
    rep["measurements_to_within_5pct"] = within;
    // Duels (AutotuneOptions::confirm_rounds): re-timings of a challenger beside the best.
    int duels = 0, duels_won = 0;
    for (const json &m : ms)
        if (m.contains("duel")) {
            duels++;
            duels_won += m["duel"].value("won", false);
        }
    rep["duels"] = duels;
    rep["duels_won"] = duels_won;
    if (verified_best_s_ > 0) {
        rep["verified_best_seconds"] = verified_best_s_;
        rep["verified_baseline_seconds"] =
            verified_base_s_ > 0 ? json(verified_base_s_) : json(nullptr);
        rep["verified_best_hash"] = best_hash_;
    }
    write_file_atomically(dir_ / "report.json", rep.dump(1) + "\n");

    std::ostringstream md;
    md << "# Autotuning report: " << identity_ << "\n\n";
    md << "- selection: " << opt_.select << "; " << ms.size() << " measurements (" << failures_
       << " failed) in " << bs.size() << " batches, " << fmt_duration(elapsed()) << "\n";
    if (baseline_s_ > 0) md << "- untuned Sextant schedule: " << fmt_ms(baseline_s_) << "\n";
    if (best_s_ > 0) {
        md << "- best measured: " << fmt_ms(best_s_) << " (best.schedule.h)";
        if (baseline_s_ > 0)
            md << ", " << std::to_string(baseline_s_ / best_s_).substr(0, 4) << "x faster";
        md << "\n- measurements to come within 5% of the best: " << within << "\n";
        if (duels > 0)
            md << "- " << duels << " measurements challenged the best so far in a re-timing beside "
               << "it; " << duels_won << " won and became the best\n";
    }
    if (verified_best_s_ > 0) {
        md << "- re-timed interleaved (verified.json): best " << fmt_ms(verified_best_s_);
        if (verified_base_s_ > 0)
            md << ", untuned " << fmt_ms(verified_base_s_) << ", "
               << std::to_string(verified_base_s_ / verified_best_s_).substr(0, 4) << "x faster";
        md << "; best.schedule.h is the winner of this re-timing\n";
    }
    md << "\n| batch | measured | best ms | elapsed |\n|---:|---:|---:|---:|\n";
    for (const json &b : bs) {
        md << "| " << b.value("batch", 0) << " | " << b.value("measured", 0) << " | "
           << (b["best_seconds"].is_number() ? fmt_ms(b["best_seconds"]) : "-") << " | "
           << fmt_duration(b.value("elapsed_s", 0.0)) << " |\n";
    }
    md << "\n![best runtime](curve.png)\n";
    write_file_atomically(dir_ / "report.md", md.str());
    if (!opt_.plot_script.empty()) {
        // The first python3 on PATH may lack matplotlib (pyenv, venvs): then try the system
        // interpreter, where Debian's python3-matplotlib lives.
        std::string logp = (dir_ / "logs" / "plot.log").string();
        fs::remove(logp);
        RunResult r;
        for (const std::string &py : {opt_.python, std::string("/usr/bin/python3")}) {
            r = run_logged({py, opt_.plot_script, (dir_ / "measurements.jsonl").string(),
                            (dir_ / "curve.png").string()},
                           {}, logp, 120);
            if (r.ok()) break;
        }
        if (!r.ok()) log("note: no curve.png (" + r.message + "; see " + logp + ")");
    }
}

std::vector<RemeasuredSchedule> Autotuner::interleaved(const std::vector<Proposal> &props,
                                                       const std::vector<std::string> &names,
                                                       int rounds, const fs::path &where,
                                                       int max_rounds) {
    std::vector<RemeasuredSchedule> out(props.size());
    std::vector<fs::path> dirs(props.size());
    for (size_t i = 0; i < props.size(); i++) {
        out[i].file = names[i];
        dirs[i] = where / std::to_string(i);
    }
    std::vector<Measured> built = build_all(props, dirs);
    // The timing protocol: round r runs every schedule that built once, in a fresh process.
    std::vector<Subject> subjects;
    std::vector<size_t> index;
    for (size_t i = 0; i < props.size(); i++) {
        if (!built[i].ok) {
            out[i].error = built[i].error;
            continue;
        }
        subjects.push_back(timing_subject(dirs[i]));
        index.push_back(i);
    }
    std::vector<SubjectResult> rs = measure_interleaved(subjects, protocol(rounds));
    int done = rounds;
    // A close call gets more rounds, added to the ones before (every round a fresh process
    // per schedule; the minimum over all of them is the protocol's figure).
    while (done + rounds <= max_rounds && close_call(rs)) {
        log("the fastest two are within " + std::to_string(int(kCloseCall * 100 + 0.5)) +
            "% of each other: " + std::to_string(rounds) + " more rounds");
        std::vector<SubjectResult> more = measure_interleaved(subjects, protocol(rounds));
        for (size_t k = 0; k < rs.size(); k++) {
            if (!rs[k].ok()) continue;
            if (!more[k].ok()) {
                // A schedule that fails in a later round (a crash) must not win the re-timing.
                rs[k].kind = more[k].kind;
                rs[k].error = more[k].error;
                continue;
            }
            rs[k].rounds.insert(rs[k].rounds.end(), more[k].rounds.begin(), more[k].rounds.end());
        }
        done += rounds;
    }
    for (size_t k = 0; k < rs.size(); k++) {
        RemeasuredSchedule &x = out[index[k]];
        if (!rs[k].ok()) {
            x.error = std::string(failure_kind_name(rs[k].kind)) + ": " + rs[k].error;
            continue;
        }
        for (const TimedRuns &t : rs[k].rounds)
            x.runs_s.push_back(t.best_s());
        x.min_s = rs[k].best_s();
        x.median_s = rs[k].round_best_median_s();
    }
    fs::remove_all(where);
    return out;
}

std::vector<RemeasuredSchedule> Autotuner::remeasure(const std::vector<std::string> &files,
                                                     int rounds) {
    opt_.select = "remeasure";
    setup();
    std::vector<Proposal> props(files.size());
    for (size_t i = 0; i < files.size(); i++) {
        // "also:NAME": the schedule another autoscheduler makes (as --also names them).
        if (files[i].rfind("also:", 0) == 0) {
            props[i] = also_proposal(files[i].substr(5));
            continue;
        }
        if (!fs::exists(files[i])) throw UserError("no schedule file '" + files[i] + "'");
        props[i].text = read_text(files[i]);
        props[i].hash = schedule_hash(props[i].text);
    }
    std::vector<RemeasuredSchedule> out = interleaved(props, files, rounds, dir_ / "remeasure");
    write_file_atomically(dir_ / "remeasure.json", remeasured_json(out).dump(1) + "\n");
    return out;
}

void Autotuner::verify_best() {
    // The fastest few measured schedules (and the untuned one), rebuilt and timed interleaved:
    // on a shared machine one lucky measurement must not decide what the user gets.
    if (opt_.final_top <= 0) return;
    const std::vector<SampleRecord> ok = fastest_measured();
    std::vector<Proposal> props;
    std::vector<std::string> names;
    for (size_t i = 0; i < ok.size() && int(props.size()) < opt_.final_top; i++) {
        Proposal p;
        p.text = ok[i].schedule_text;
        p.hash = ok[i].schedule_hash;
        props.push_back(p);
        names.push_back(p.hash);
    }
    std::string base_hash;
    for (const json &m : read_json_lines(dir_ / "measurements.jsonl")) {
        if (m.value("baseline", false) && m.contains("runtime_seconds"))
            base_hash = m.value("hash", "");
        // Another autoscheduler's schedule (--also) that measured: rebuilt by it again.
        if (m.contains("scheduler_name") && m.contains("runtime_seconds") &&
            std::find(names.begin(), names.end(), m.value("hash", "")) == names.end()) {
            Proposal p = foreign_proposal(m);
            props.push_back(p);
            names.push_back(p.hash);
        }
    }
    if (!base_hash.empty() && std::find(names.begin(), names.end(), base_hash) == names.end()) {
        Proposal p;
        p.text = read_text(dir_ / "schedules" / (base_hash + ".txt"));
        p.hash = base_hash;
        props.push_back(p);
        names.push_back(base_hash);
    }
    if (props.size() < 2) return;
    log("verifying: re-timing the " + std::to_string(props.size()) +
        " schedules that matter, interleaved, " + std::to_string(opt_.final_rounds) + " rounds");
    std::vector<RemeasuredSchedule> rs =
        interleaved(props, names, opt_.final_rounds, dir_ / "verify-build", opt_.final_max_rounds);
    int win = -1;
    for (size_t i = 0; i < rs.size(); i++)
        if (rs[i].error.empty() && rs[i].min_s > 0 && (win < 0 || rs[i].min_s < rs[win].min_s))
            win = int(i);
    if (win < 0) return;
    json j = {{"schedules", remeasured_json(rs)}, {"winner", names[win]}};
    for (size_t i = 0; i < rs.size(); i++)
        if (names[i] == base_hash && rs[i].min_s > 0) j["baseline_seconds"] = rs[i].min_s;
    j["best_seconds"] = rs[win].min_s;
    write_file_atomically(dir_ / "verified.json", j.dump(1) + "\n");
    best_hash_ = names[win];
    write_best(best_hash_);
    verified_best_s_ = rs[win].min_s;
    verified_base_s_ = j.value("baseline_seconds", 0.0);
    char b[160];
    std::snprintf(b, sizeof(b), "verified best %s: %.4f ms", best_hash_.c_str(),
                  verified_best_s_ * 1e3);
    std::string msg = b;
    if (verified_base_s_ > 0) {
        std::snprintf(b, sizeof(b), ", untuned %.4f ms in the same rounds (%.2fx)",
                      verified_base_s_ * 1e3, verified_base_s_ / verified_best_s_);
        msg += b;
    }
    log(msg);
}

} // namespace autotune_detail
} // namespace sextant
