// fake_timed: a stand-in for a timed pipeline process, for the protocol tests (no Halide). It
// times a busy loop with TimingLoop and prints the same JSON line sextant-time --time-one does,
// or misbehaves on request.
//
//   fake_timed [--spin-ms MS] [--max-runs N] [--label L --log FILE] [--env-log NAME]
//              [--busy-until N --counter FILE] [--crash | --hang | --exit N | --no-output |
//               --error-line KIND]
#include "measure/TimingLoop.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace sextant;

int main(int argc, char **argv) {
    double spin_ms = 0.2;
    StopRule rule;
    rule.budget_s = 1;
    std::string label, log, counter, env_name, error_kind;
    int busy_until = 0, exit_code = -1;
    bool crash = false, hang = false, no_output = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() { return std::string(i + 1 < argc ? argv[++i] : ""); };
        if (a == "--spin-ms")
            spin_ms = std::atof(next().c_str());
        else if (a == "--max-runs")
            rule.max_runs = std::atoi(next().c_str());
        else if (a == "--label")
            label = next();
        else if (a == "--log")
            log = next();
        else if (a == "--env-log")
            env_name = next();
        else if (a == "--busy-until")
            busy_until = std::atoi(next().c_str());
        else if (a == "--counter")
            counter = next();
        else if (a == "--crash")
            crash = true;
        else if (a == "--hang")
            hang = true;
        else if (a == "--exit")
            exit_code = std::atoi(next().c_str());
        else if (a == "--no-output")
            no_output = true;
        else if (a == "--error-line")
            error_kind = next();
    }
    if (!log.empty()) {
        std::ofstream f(log, std::ios::app);
        f << label;
        if (!env_name.empty()) {
            const char *v = std::getenv(env_name.c_str());
            f << "=" << (v ? v : "<unset>");
        }
        f << "\n";
    }
    int invocation = 0;
    if (!counter.empty()) {
        std::ifstream in(counter);
        in >> invocation;
        invocation++;
        std::ofstream(counter) << invocation;
    }
    if (crash) std::raise(SIGSEGV);
    if (hang) sleep(1000);
    if (exit_code >= 0) return exit_code;
    if (no_output) return 0;
    if (!error_kind.empty()) {
        std::printf("%s\n", timing_error_json(error_kind, "fake failure").c_str());
        return 2;
    }
    TimedRuns t;
    time_runs(
        [&] {
            auto end = std::chrono::steady_clock::now() +
                       std::chrono::duration<double, std::milli>(spin_ms);
            while (std::chrono::steady_clock::now() < end) {
            }
            return true;
        },
        rule, t);
    // With a counter the busy fraction is made up, so that the tests do not depend on the load.
    if (!counter.empty()) t.busy_fraction = invocation <= busy_until ? 0.9 : 0.0;
    std::printf("some other output first\n%s\n", timed_runs_to_json(t).c_str());
    return 0;
}
