#include "measure/Protocol.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace sextant {

namespace {

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <typename F> double median_over_rounds(const std::vector<TimedRuns> &rounds, F f) {
    std::vector<double> v;
    for (const TimedRuns &t : rounds)
        v.push_back(f(t));
    return median_of(v);
}

/** The last line of `out` that is a JSON object. */
std::string last_json_line(const std::string &out) {
    std::istringstream in(out);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty() && line[0] == '{') last = line;
    return last;
}

/** One fresh timed process of s. */
bool attempt(const Subject &s, const ProtocolOptions &opt, TimedRuns &t, FailureKind &kind,
             std::string &error) {
    ChildOptions co;
    co.timeout_s = opt.timeout_s;
    co.capture_stdout = true;
    co.log_path = s.log_path;
    co.env = s.env;
    co.drop_env = [&s](const std::string &name) {
        return allocator_env(name) || (s.drop_env && s.drop_env(name));
    };
    RunResult r = run_program(s.argv, co);
    std::string line = last_json_line(r.output);
    if (r.ok() && timed_runs_from_json(line, t)) return true;
    kind = r.ok() ? FailureKind::Other : r.kind;
    error = r.ok() ? "the timed program printed no timing" : r.message;
    // A timed program that could not measure says why; a crash or timeout says it louder.
    if (!line.empty() && r.kind != FailureKind::Timeout && r.kind != FailureKind::Crash) {
        try {
            nlohmann::json j = nlohmann::json::parse(line);
            if (j.contains("error")) {
                error = j["error"].get<std::string>();
                kind = parse_failure_kind(j.value("failure_kind", std::string("other")));
                if (kind == FailureKind::None) kind = FailureKind::Other;
            }
        } catch (const nlohmann::json::exception &) {
        }
    }
    return false;
}

} // namespace

bool allocator_env(const std::string &name) {
    return name.rfind("MALLOC_", 0) == 0 || name == "GLIBC_TUNABLES";
}

double SubjectResult::best_s() const {
    double b = 0;
    for (const TimedRuns &t : rounds)
        if (b == 0 || t.best_s() < b) b = t.best_s();
    return b;
}

double SubjectResult::median_s() const {
    std::vector<double> all;
    for (const TimedRuns &t : rounds)
        all.insert(all.end(), t.times_s.begin(), t.times_s.end());
    return median_of(all);
}

double SubjectResult::round_best_median_s() const {
    return median_over_rounds(rounds, [](const TimedRuns &t) { return t.best_s(); });
}

double SubjectResult::round_spread() const {
    double lo = 0, hi = 0;
    for (const TimedRuns &t : rounds) {
        double b = t.best_s();
        if (lo == 0 || b < lo) lo = b;
        hi = std::max(hi, b);
    }
    return lo > 0 ? hi / lo : 0;
}

int SubjectResult::runs() const {
    int n = 0;
    for (const TimedRuns &t : rounds)
        n += int(t.times_s.size());
    return n;
}

int SubjectResult::converged_rounds() const {
    int n = 0;
    for (const TimedRuns &t : rounds)
        n += t.converged();
    return n;
}

double SubjectResult::minflt_per_run() const {
    return median_over_rounds(rounds, [](const TimedRuns &t) { return t.minflt_per_run; });
}
double SubjectResult::nvcsw_per_run() const {
    return median_over_rounds(rounds, [](const TimedRuns &t) { return t.nvcsw_per_run; });
}
double SubjectResult::nivcsw_per_run() const {
    return median_over_rounds(rounds, [](const TimedRuns &t) { return t.nivcsw_per_run; });
}
double SubjectResult::busy_fraction() const {
    return median_over_rounds(rounds, [](const TimedRuns &t) { return t.busy_fraction; });
}

bool measure_round(const Subject &s, const ProtocolOptions &opt, SubjectResult &into) {
    if (into.label.empty()) into.label = s.label;
    bool have = false;
    TimedRuns kept;
    for (int a = 0; a <= std::max(0, opt.busy_retries); a++) {
        TimedRuns t;
        FailureKind kind = FailureKind::None;
        std::string error;
        into.processes++;
        if (a > 0) into.busy_retries++;
        if (!attempt(s, opt, t, kind, error)) {
            into.kind = kind;
            into.error = error;
            return false;
        }
        if (!have || t.busy_fraction < kept.busy_fraction) kept = t;
        have = true;
        if (t.busy_fraction <= opt.busy_threshold) break;
    }
    if (kept.busy_fraction > opt.busy_threshold) into.busy_rounds++;
    into.rounds.push_back(std::move(kept));
    return true;
}

std::vector<SubjectResult> measure_interleaved(const std::vector<Subject> &subjects,
                                               const ProtocolOptions &opt) {
    std::vector<SubjectResult> out(subjects.size());
    for (size_t i = 0; i < subjects.size(); i++)
        out[i].label = subjects[i].label;
    const size_t n = subjects.size();
    for (int r = 0; r < std::max(1, opt.rounds); r++) {
        for (size_t k = 0; k < n; k++) {
            size_t i = (k + size_t(r)) % n; // rotated: no subject always runs first
            if (out[i].kind != FailureKind::None) continue;
            measure_round(subjects[i], opt, out[i]);
        }
    }
    return out;
}

} // namespace sextant
