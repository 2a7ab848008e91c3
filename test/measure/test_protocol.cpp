// Protocol: with a fake timed program (test/measure/fake_timed.cpp, no Halide) — rounds are
// interleaved in fresh processes, busy processes are retried, failures are typed and keep a
// subject out of later rounds, and timed processes get the default allocator.
#include "measure/Protocol.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace sextant;

namespace {

std::string temp_path(const char *name) {
    char dir[] = "/tmp/sextant-protocol-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    return std::string(dir) + "/" + name;
}

std::vector<std::string> lines(const std::string &path) {
    std::ifstream f(path);
    std::vector<std::string> out;
    std::string l;
    while (std::getline(f, l))
        out.push_back(l);
    return out;
}

Subject fake(const std::string &label, std::vector<std::string> args) {
    Subject s;
    s.label = label;
    s.argv = {FAKE_TIMED_EXE, "--max-runs", "5"};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    return s;
}

ProtocolOptions options(int rounds) {
    ProtocolOptions o;
    o.rounds = rounds;
    o.timeout_s = 20;
    o.busy_threshold = 0.5;
    o.busy_retries = 2;
    o.speed = nullptr; // the machine-speed check has its own cases, with a scripted probe
    return o;
}

/** A probe that returns the scripted times in order (the last one forever after), counting
 * its calls in `calls` if given. */
std::shared_ptr<MachineSpeed>
scripted(std::vector<double> times, std::shared_ptr<size_t> calls = nullptr, size_t window = 256) {
    if (!calls) calls = std::make_shared<size_t>(0);
    return std::make_shared<MachineSpeed>(
        [times, calls]() {
            double t = times[std::min(*calls, times.size() - 1)];
            ++*calls;
            return t;
        },
        window);
}

} // namespace

TEST_CASE("round r runs every subject once, in fresh processes, rotated", "[protocol]") {
    std::string log = temp_path("order.log");
    std::vector<Subject> subjects;
    for (const char *l : {"A", "B", "C"}) {
        // Fake busy fractions pinned to 0 (a counter that is never "busy").
        subjects.push_back(fake(l, {"--label", l, "--log", log, "--counter", log + l}));
    }
    std::vector<SubjectResult> rs = measure_interleaved(subjects, options(3));
    CHECK(lines(log) == std::vector<std::string>{"A", "B", "C", "B", "C", "A", "C", "A", "B"});
    REQUIRE(rs.size() == 3);
    for (const SubjectResult &r : rs) {
        CHECK(r.ok());
        CHECK(r.rounds.size() == 3);
        CHECK(r.processes == 3);
        CHECK(r.busy_retries == 0);
        CHECK(r.runs() >= 9);
        CHECK(r.best_s() > 0);
        CHECK(r.best_s() <= r.round_best_median_s());
        CHECK(r.round_spread() >= 1);
    }
    CHECK(rs[0].label == "A");
}

TEST_CASE("a process on a busy machine is retried, the least busy attempt kept", "[protocol]") {
    std::string counter = temp_path("counter");
    // The first process reports that it waited for a CPU 90% of the time; the retry does not.
    SubjectResult once = measure_interleaved(
        {fake("x", {"--counter", counter, "--busy-until", "1"})}, options(1))[0];
    CHECK(once.ok());
    CHECK(once.processes == 2);
    CHECK(once.busy_retries == 1);
    CHECK(once.busy_rounds == 0);
    CHECK(once.rounds.at(0).busy_fraction == 0);

    // Always busy: two retries, then the round is kept and counted as busy.
    std::string c2 = temp_path("counter");
    SubjectResult always =
        measure_interleaved({fake("y", {"--counter", c2, "--busy-until", "99"})}, options(2))[0];
    CHECK(always.ok());
    CHECK(always.processes == 6);
    CHECK(always.busy_retries == 4);
    CHECK(always.busy_rounds == 2);
    CHECK(always.rounds.size() == 2);
}

TEST_CASE("a process timed while the whole machine was slow is retried", "[protocol]") {
    std::string counter = temp_path("counter");
    ProtocolOptions o = options(1);
    o.slow_wait_s = 0;
    o.slow_max_wait_s = 0;
    // Probes before and after each process: fast, then slow after the first process (the
    // machine slowed down while it ran), then fast around the retry.
    o.speed = scripted({1.0, 1.5, 1.0, 1.02});
    SubjectResult r = measure_interleaved({fake("x", {"--counter", counter})}, o)[0];
    CHECK(r.ok());
    CHECK(r.processes == 2);
    CHECK(r.busy_retries == 1);
    CHECK(r.slow_retries == 1);
    CHECK(r.busy_rounds == 0);
    REQUIRE(r.slowdowns.size() == 1);
    CHECK(r.slowdowns[0] == Approx(1.02));

    // Slow throughout: retried, then kept (the least slow attempt) and counted.
    o.speed = scripted({1.0, 1.3, 1.2, 1.25});
    o.busy_retries = 1;
    SubjectResult slow = measure_interleaved({fake("y", {"--counter", counter + "y"})}, o)[0];
    CHECK(slow.ok());
    CHECK(slow.processes == 2);
    CHECK(slow.busy_rounds == 1);
    CHECK(slow.slowdowns.at(0) == Approx(1.25));
}

TEST_CASE("a slow machine is waited for before a process starts", "[protocol]") {
    std::string counter = temp_path("counter");
    ProtocolOptions o = options(1);
    o.slow_wait_s = 0.01;
    o.slow_max_wait_s = 1;
    auto calls = std::make_shared<size_t>(0);
    o.speed = scripted({1.0, 1.0, 2.0, 2.0, 1.0, 1.0}, calls);
    // a: fast before and after. b: slow before it starts (two probes), so it waits until the
    // probe is fast again, then runs once, needing no retry.
    std::vector<SubjectResult> rs = measure_interleaved(
        {fake("a", {"--counter", counter}), fake("b", {"--counter", counter + "b"})}, o);
    CHECK(*calls == 6);
    for (const SubjectResult &r : rs) {
        CHECK(r.ok());
        CHECK(r.processes == 1);
        CHECK(r.busy_retries == 0);
        CHECK(r.slowdowns.at(0) == Approx(1.0));
    }

    // A slow machine that does not recover within slow_max_wait_s is timed anyway.
    *calls = 0;
    o.speed = scripted({1.0, 1.0, 1.0, 1.0, 3.0}, calls);
    o.slow_max_wait_s = 0.05;
    o.busy_retries = 0;
    for (int i = 0; i < 4; i++)
        CHECK(o.speed->slowdown() == 1.0); // the usual; every probe after these is 3x slower
    SubjectResult slow = measure_interleaved({fake("c", {"--counter", counter + "c"})}, o)[0];
    CHECK(*calls >= 4); // probed, waited and probed again before starting, once after
    CHECK(slow.ok());
    CHECK(slow.busy_rounds == 1);
    CHECK(slow.slowdowns.at(0) == Approx(3.0));
}

TEST_CASE("slow means slower than the lower quartile of recent probes", "[protocol]") {
    // One lucky probe does not make the usual ones slow (it did against the fastest ever).
    std::shared_ptr<MachineSpeed> speed =
        scripted({2.0, 2.1, 2.0, 2.05, 1.6, 2.1, 2.0, 2.05, 2.6}, nullptr, 8);
    MachineSpeed &m = *speed;
    CHECK(m.slowdown() == 1.0);
    for (int i = 0; i < 3; i++)
        CHECK(m.slowdown() < 1.08);
    CHECK(m.slowdown() < 1.0); // the lucky one
    for (int i = 0; i < 3; i++)
        CHECK(m.slowdown() < 1.08);
    CHECK(m.slowdown() == Approx(2.6 / 2.0)); // and a slow one still reads slow
    // A slowdown that lasts most of the window becomes the usual.
    for (int i = 0; i < 8; i++)
        m.slowdown();
    CHECK(m.slowdown() == 1.0);
}

TEST_CASE("the machine-speed probe times a fixed workload", "[protocol]") {
    double p = probe_machine_speed();
    CHECK(p > 0);
    CHECK(p < 1);
    MachineSpeed m(probe_machine_speed);
    CHECK(m.slowdown() == 1.0); // the first probe is its own usual
    CHECK(m.slowdown() >= 1.0);
}

TEST_CASE("failures are typed and drop the subject from later rounds", "[protocol]") {
    std::string log = temp_path("fail.log");
    ProtocolOptions o = options(2);
    o.timeout_s = 1;
    std::vector<Subject> subjects = {
        fake("crash", {"--crash", "--label", "crash", "--log", log}),
        fake("hang", {"--hang"}),
        fake("exit", {"--exit", "3"}),
        fake("silent", {"--no-output"}),
        fake("wrong", {"--error-line", "wrong_output"}),
        fake("fine", {"--counter", log + ".n"}),
    };
    subjects.push_back(fake("missing", {}));
    subjects.back().argv[0] = "/no/such/timed/program";
    std::vector<SubjectResult> rs = measure_interleaved(subjects, o);
    CHECK(rs[0].kind == FailureKind::Crash);
    CHECK(rs[0].error.rfind("crash: signal 11", 0) == 0);
    CHECK(lines(log).size() == 1); // not run again in round 2
    CHECK(rs[1].kind == FailureKind::Timeout);
    CHECK(rs[2].kind == FailureKind::Other);
    CHECK(rs[2].error == "exit status 3");
    CHECK(rs[3].kind == FailureKind::Other);
    CHECK(rs[3].error == "the timed program printed no timing");
    CHECK(rs[4].kind == FailureKind::WrongOutput);
    CHECK(rs[4].error == "fake failure");
    CHECK(rs[5].ok());
    CHECK(rs[5].rounds.size() == 2);
    CHECK(rs[6].kind == FailureKind::Other);
    CHECK(rs[6].error.find("could not start") == 0);
    for (const SubjectResult &r : rs)
        if (!r.ok()) CHECK(r.rounds.empty());
}

TEST_CASE("timed processes get the default allocator unless a subject asks", "[protocol]") {
    setenv("MALLOC_TRIM_THRESHOLD_", "1000000000", 1);
    setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1", 1);
    std::string log = temp_path("env.log");
    Subject plain = fake("plain", {"--label", "plain", "--log", log, "--env-log",
                                   "MALLOC_TRIM_THRESHOLD_", "--counter", log + ".n"});
    Subject asked = fake("asked", {"--label", "asked", "--log", log, "--env-log",
                                   "MALLOC_TRIM_THRESHOLD_", "--counter", log + ".n"});
    asked.env["MALLOC_TRIM_THRESHOLD_"] = "123";
    Subject tunables = fake("tunables", {"--label", "tunables", "--log", log, "--env-log",
                                         "GLIBC_TUNABLES", "--counter", log + ".n"});
    measure_interleaved({plain, asked, tunables}, options(1));
    unsetenv("MALLOC_TRIM_THRESHOLD_");
    unsetenv("GLIBC_TUNABLES");
    CHECK(lines(log) == std::vector<std::string>{"plain=<unset>", "asked=123", "tunables=<unset>"});
}
