#include "measure/TimingLoop.h"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

namespace sextant {

const char *stop_reason_name(StopReason r) {
    switch (r) {
    case StopReason::Continue:
        return "continue";
    case StopReason::Converged:
        return "converged";
    case StopReason::MaxRuns:
        return "max_runs";
    case StopReason::Budget:
        return "budget";
    }
    return "continue";
}

StopReason stop_reason(const std::vector<double> &times_s, double spent_s, const StopRule &rule) {
    const int n = int(times_s.size());
    const int max_runs = std::max(1, rule.max_runs);
    const int min_runs = std::min(std::max(3, rule.min_runs), max_runs);
    if (n == 0) return StopReason::Continue;
    if (n >= 3 && n >= min_runs) {
        std::vector<double> s = times_s;
        std::nth_element(s.begin(), s.begin() + 2, s.end());
        std::sort(s.begin(), s.begin() + 3);
        if (s[2] <= s[0] * (1 + rule.tolerance)) return StopReason::Converged;
    }
    if (n >= max_runs) return StopReason::MaxRuns;
    if (rule.budget_s > 0 && spent_s >= rule.budget_s && n >= min_runs) return StopReason::Budget;
    return StopReason::Continue;
}

ProcessCounters read_process_counters() {
    ProcessCounters c;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    c.minflt = ru.ru_minflt;
    c.majflt = ru.ru_majflt;
    c.nvcsw = ru.ru_nvcsw;
    c.nivcsw = ru.ru_nivcsw;
    // schedstat is per thread: sum the run-queue delay of every thread of this process.
    double ns = 0;
    if (DIR *d = opendir("/proc/self/task")) {
        while (dirent *e = readdir(d)) {
            if (e->d_name[0] == '.') continue;
            std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/schedstat");
            double on_cpu = 0, waiting = 0;
            if (f >> on_cpu >> waiting) ns += waiting;
        }
        closedir(d);
    }
    c.run_delay_s = ns * 1e-9;
    return c;
}

namespace {

std::vector<double> sorted(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

double TimedRuns::best_s() const {
    return times_s.empty() ? 0 : *std::min_element(times_s.begin(), times_s.end());
}

double TimedRuns::third_best_s() const {
    if (times_s.size() < 3) return best_s();
    return sorted(times_s)[2];
}

double TimedRuns::median_s() const {
    if (times_s.empty()) return 0;
    std::vector<double> s = sorted(times_s);
    size_t n = s.size();
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

bool time_runs(const std::function<bool()> &call, const StopRule &rule, TimedRuns &out) {
    using Clock = std::chrono::steady_clock;
    out = TimedRuns();
    ProcessCounters w0 = read_process_counters();
    auto t0 = Clock::now();
    if (!call()) return false;
    out.warmup_s = std::chrono::duration<double>(Clock::now() - t0).count();
    out.warmup_minflt = read_process_counters().minflt - w0.minflt;
    if (rule.min_run_s > 0) {
        double k = std::ceil(rule.min_run_s / std::max(out.warmup_s, 1e-7));
        out.calls_per_run = int(std::max(1.0, std::min(1000.0, k)));
    }
    ProcessCounters c0 = read_process_counters();
    auto start = Clock::now();
    StopReason why = StopReason::Continue;
    while (why == StopReason::Continue) {
        auto a = Clock::now();
        for (int k = 0; k < out.calls_per_run; k++)
            if (!call()) return false;
        auto b = Clock::now();
        out.times_s.push_back(std::chrono::duration<double>(b - a).count() / out.calls_per_run);
        why = stop_reason(out.times_s, std::chrono::duration<double>(b - start).count(), rule);
    }
    ProcessCounters c1 = read_process_counters();
    out.timed_s = std::chrono::duration<double>(Clock::now() - start).count();
    out.stop = stop_reason_name(why);
    double calls = double(out.times_s.size()) * out.calls_per_run;
    out.minflt_per_run = double(c1.minflt - c0.minflt) / calls;
    out.majflt_per_run = double(c1.majflt - c0.majflt) / calls;
    out.nvcsw_per_run = double(c1.nvcsw - c0.nvcsw) / calls;
    out.nivcsw_per_run = double(c1.nivcsw - c0.nivcsw) / calls;
    out.run_delay_s = std::max(0.0, c1.run_delay_s - c0.run_delay_s);
    out.busy_fraction = out.timed_s > 0 ? out.run_delay_s / out.timed_s : 0;
    return true;
}

// The measured fields as JSON under their own names; a line missing one (an older child's)
// reads as the field's default.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimedRuns, times_s, calls_per_run, stop, warmup_s,
                                                warmup_minflt, timed_s, minflt_per_run,
                                                majflt_per_run, nvcsw_per_run, nivcsw_per_run,
                                                run_delay_s, busy_fraction)

std::string timed_runs_to_json(const TimedRuns &t) {
    nlohmann::json j = t;
    j["best_s"] = t.best_s();
    j["third_best_s"] = t.third_best_s();
    j["median_s"] = t.median_s();
    j["runs"] = t.times_s.size();
    return j.dump();
}

bool timed_runs_from_json(const std::string &line, TimedRuns &out) {
    if (line.empty() || line[0] != '{') return false;
    try {
        nlohmann::json j = nlohmann::json::parse(line);
        if (!j.is_object() || !j.contains("times_s")) return false;
        TimedRuns t = j.get<TimedRuns>();
        if (t.times_s.empty()) return false;
        out = std::move(t);
        return true;
    } catch (const nlohmann::json::exception &) {
        return false;
    }
}

std::string timing_error_json(const std::string &kind, const std::string &message) {
    return nlohmann::json({{"error", message}, {"failure_kind", kind}}).dump();
}

} // namespace sextant
