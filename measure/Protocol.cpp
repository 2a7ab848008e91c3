#include "measure/Protocol.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <thread>

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

/** The slowdown before a timed process: probes, and while slow waits and probes again, within
 * the options' limits. 1 when the check is off. */
double settle(const ProtocolOptions &opt) {
    if (!opt.speed || opt.slow_threshold <= 0) return 1;
    double s = opt.speed->slowdown();
    for (double waited = 0; s > 1 + opt.slow_threshold && waited < opt.slow_max_wait_s;
         waited += std::max(opt.slow_wait_s, 0.01)) {
        std::this_thread::sleep_for(std::chrono::duration<double>(opt.slow_wait_s));
        s = opt.speed->slowdown();
    }
    return s;
}

/** How far over its thresholds an attempt was: <= 1 is undisturbed. */
double disturbance(const TimedRuns &t, double slowdown, const ProtocolOptions &opt) {
    double d = opt.busy_threshold > 0 ? t.busy_fraction / opt.busy_threshold
                                      : (t.busy_fraction > 0 ? 2 : 0);
    if (opt.speed && opt.slow_threshold > 0) d = std::max(d, (slowdown - 1) / opt.slow_threshold);
    return d;
}

} // namespace

double probe_machine_speed() {
    // Touched once, so that the probe never counts page faults.
    static std::vector<uint64_t> buffer(size_t(8) << 17, 1); // 8 MiB
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    double best = 0;
    for (int rep = 0; rep < 6; rep++) {
        auto t0 = std::chrono::steady_clock::now();
        uint64_t h = 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < 1000000; i++) {
            h ^= h >> 31;
            h *= 0xbf58476d1ce4e5b9ull;
            h += uint64_t(i);
        }
        for (uint64_t &v : buffer)
            v = v * 3 + (h & 7);
        volatile uint64_t sink = h + buffer[size_t(h % buffer.size())];
        (void)sink;
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (rep == 0 || s < best) best = s;
    }
    return best;
}

double MachineSpeed::slowdown() {
    double t = probe_();
    if (t <= 0) return 1;
    std::lock_guard<std::mutex> lock(mu_);
    if (recent_.size() == window_) recent_.erase(recent_.begin());
    recent_.push_back(t);
    std::vector<double> sorted = recent_;
    std::sort(sorted.begin(), sorted.end());
    return t / sorted[(sorted.size() - 1) / 4];
}

std::shared_ptr<MachineSpeed> default_machine_speed() {
    // Off where timings are not meant to mean anything (the test suite runs tests side by side,
    // and would wait on itself).
    static const char *check = std::getenv("SX_SPEED_CHECK");
    static std::shared_ptr<MachineSpeed> s =
        check && std::string(check) == "0" ? nullptr
                                           : std::make_shared<MachineSpeed>(probe_machine_speed);
    return s;
}

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
    double kept_slowdown = 1, kept_disturbance = 0;
    for (int a = 0; a <= std::max(0, opt.busy_retries); a++) {
        TimedRuns t;
        FailureKind kind = FailureKind::None;
        std::string error;
        const double before = settle(opt);
        into.processes++;
        if (!attempt(s, opt, t, kind, error)) {
            into.kind = kind;
            into.error = error;
            return false;
        }
        const double after = opt.speed && opt.slow_threshold > 0 ? opt.speed->slowdown() : 1;
        const double slowdown = std::max(before, after);
        const double d = disturbance(t, slowdown, opt);
        if (!have || d < kept_disturbance) {
            kept = t;
            kept_slowdown = slowdown;
            kept_disturbance = d;
        }
        have = true;
        if (d <= 1 || a == std::max(0, opt.busy_retries)) break;
        into.busy_retries++;
        if (t.busy_fraction <= opt.busy_threshold) into.slow_retries++;
    }
    if (kept_disturbance > 1) into.busy_rounds++;
    into.rounds.push_back(std::move(kept));
    into.slowdowns.push_back(kept_slowdown);
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
