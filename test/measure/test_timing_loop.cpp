// TimingLoop: the stopping rule (best and third-best within the tolerance, bounded by a run
// count and a time budget), the counters, and the JSON line a timed process prints.
#include "measure/TimingLoop.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <sys/mman.h>
#include <vector>

using namespace sextant;

namespace {

StopRule rule(int max_runs, double budget_s = 0, double tol = 0.03) {
    StopRule r;
    r.max_runs = max_runs;
    r.budget_s = budget_s;
    r.tolerance = tol;
    return r;
}

} // namespace

TEST_CASE("stops when the best and third-best agree within the tolerance", "[timing]") {
    StopRule r = rule(20);
    CHECK(stop_reason({}, 0, r) == StopReason::Continue);
    CHECK(stop_reason({1.0, 1.0}, 0, r) == StopReason::Continue); // no third-best yet
    CHECK(stop_reason({1.0, 1.02, 1.01}, 0, r) == StopReason::Converged);
    CHECK(stop_reason({1.0, 1.02, 1.04}, 0, r) == StopReason::Continue); // 4% apart
    // Order does not matter, outliers above the third-best do not either.
    CHECK(stop_reason({5.0, 1.03, 9.0, 1.0, 1.01}, 0, r) == StopReason::Converged);
    CHECK(stop_reason({1.0, 2.0, 1.0, 2.0}, 0, r) == StopReason::Continue);
    CHECK(stop_reason({1.0, 2.0, 1.0, 2.0, 1.0}, 0, r) == StopReason::Converged);
}

TEST_CASE("the run count and the time budget bound the repetitions", "[timing]") {
    std::vector<double> spread = {1.0, 1.5, 2.0, 2.5};
    CHECK(stop_reason(spread, 0, rule(5)) == StopReason::Continue);
    CHECK(stop_reason(spread, 0, rule(4)) == StopReason::MaxRuns);
    CHECK(stop_reason(spread, 10, rule(20, 5)) == StopReason::Budget);
    CHECK(stop_reason(spread, 1, rule(20, 5)) == StopReason::Continue);
    // The budget never cuts a process short of three runs.
    CHECK(stop_reason({1.0, 2.0}, 10, rule(20, 5)) == StopReason::Continue);
    // Fewer than three allowed runs: exactly that many, never "converged".
    CHECK(stop_reason({1.0}, 0, rule(2)) == StopReason::Continue);
    CHECK(stop_reason({1.0, 1.0}, 0, rule(2)) == StopReason::MaxRuns);
    // min_runs delays the convergence check.
    StopRule r = rule(20);
    r.min_runs = 5;
    CHECK(stop_reason({1.0, 1.0, 1.0}, 0, r) == StopReason::Continue);
    CHECK(stop_reason({1.0, 1.0, 1.0, 1.0, 1.0}, 0, r) == StopReason::Converged);
}

TEST_CASE("time_runs warms up once, then follows the rule and counts page faults", "[timing]") {
    int calls = 0;
    TimedRuns t;
    // Every call touches 64 fresh pages.
    REQUIRE(time_runs(
        [&] {
            calls++;
            void *m = mmap(nullptr, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
            char *p = static_cast<char *>(m);
            for (int i = 0; i < 64; i++)
                p[i * 4096] = char(i);
            munmap(m, 64 * 4096);
            return true;
        },
        rule(7), t));
    CHECK(calls == 1 + int(t.times_s.size()));
    CHECK(t.times_s.size() >= 3);
    CHECK(t.times_s.size() <= 7);
    CHECK((t.converged() ? t.third_best_s() <= t.best_s() * 1.03 : t.stop == "max_runs"));
    CHECK(t.minflt_per_run >= 60);
    CHECK(t.best_s() <= t.median_s());
    CHECK(t.busy_fraction >= 0);

    int n = 0;
    TimedRuns f;
    CHECK_FALSE(time_runs([&] { return ++n < 3; }, rule(10), f)); // fails on the third call
    CHECK(n == 3);
}

TEST_CASE("calls are batched into runs of at least min_run_s", "[timing]") {
    int calls = 0;
    StopRule r = rule(3);
    r.min_run_s = 0.01;
    TimedRuns t;
    REQUIRE(time_runs(
        [&] {
            calls++;
            return true;
        },
        r, t));
    CHECK(t.calls_per_run > 1);
    CHECK(calls == 1 + t.calls_per_run * int(t.times_s.size()));
}

TEST_CASE("the JSON line round-trips", "[timing]") {
    TimedRuns t;
    t.times_s = {0.003, 0.001, 0.002};
    t.stop = "budget";
    t.minflt_per_run = 12.5;
    t.busy_fraction = 0.25;
    t.calls_per_run = 4;
    TimedRuns back;
    REQUIRE(timed_runs_from_json(timed_runs_to_json(t), back));
    CHECK(back.times_s == t.times_s);
    CHECK(back.stop == "budget");
    CHECK(back.minflt_per_run == 12.5);
    CHECK(back.busy_fraction == 0.25);
    CHECK(back.calls_per_run == 4);
    CHECK(back.best_s() == 0.001);
    CHECK(back.third_best_s() == 0.003);
    CHECK_FALSE(timed_runs_from_json("not json", back));
    CHECK_FALSE(timed_runs_from_json(timing_error_json("crash", "x"), back));
}
