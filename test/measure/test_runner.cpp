// Runner: forked functions and exec'd programs end as the right failure kind, with their
// output, and time limits count only the time a child was not stopped.
#include "measure/Runner.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace sextant;

namespace {

ChildOptions with_timeout(double s) {
    ChildOptions o;
    o.timeout_s = s;
    return o;
}

std::string temp_file() {
    char path[] = "/tmp/sextant-runner-test-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    return path;
}

} // namespace

TEST_CASE("failure kinds have stable names", "[runner]") {
    CHECK(std::string(failure_kind_name(FailureKind::None)) == "ok");
    CHECK(std::string(failure_kind_name(FailureKind::WrongOutput)) == "wrong_output");
    CHECK(std::string(failure_kind_name(FailureKind::CompileError)) == "compile_error");
    for (FailureKind k : {FailureKind::None, FailureKind::Timeout, FailureKind::Crash,
                          FailureKind::WrongOutput, FailureKind::CompileError, FailureKind::Other})
        CHECK(parse_failure_kind(failure_kind_name(k)) == k);
    CHECK(parse_failure_kind("no such kind") == FailureKind::Other);
}

TEST_CASE("a function child's output, exit status, crash and timeout", "[runner]") {
    RunResult ok = run_function([](int fd) { write_all(fd, "hello"); }, with_timeout(10));
    CHECK(ok.ok());
    CHECK(ok.output == "hello");
    CHECK(ok.message.empty());

    RunResult code = run_function([](int) { _exit(3); }, with_timeout(10));
    CHECK(code.kind == FailureKind::Other);
    CHECK(code.exit_code == 3);
    CHECK(code.message == "exit status 3");

    RunResult thrown = run_function([](int) { throw std::runtime_error("x"); }, with_timeout(10));
    CHECK(thrown.kind == FailureKind::Other);
    CHECK(thrown.exit_code == 1);

    RunResult crash = run_function(
        [](int fd) {
            write_all(fd, "partial");
            std::raise(SIGSEGV);
        },
        with_timeout(10));
    CHECK(crash.kind == FailureKind::Crash);
    CHECK(crash.output == "partial");
    CHECK(crash.signal == SIGSEGV);
    CHECK(crash.message.rfind("crash: signal 11", 0) == 0);

    RunResult hang = run_function([](int) { sleep(1000); }, with_timeout(0.5));
    CHECK(hang.kind == FailureKind::Timeout);
    CHECK(hang.timed_out);
    CHECK(hang.wall_s < 5);
    CHECK(hang.message == "timeout after 0.5 s");

    // A child that closes its pipe but keeps running is still waited for (and timed out).
    RunResult closed = run_function(
        [](int fd) {
            close(fd);
            sleep(1000);
        },
        with_timeout(0.5));
    CHECK(closed.kind == FailureKind::Timeout);
}

TEST_CASE("a program's output, exit status, crash, timeout and a failed start", "[runner]") {
    RunResult ok = run_program({"sh", "-c", "echo out; echo err >&2"}, with_timeout(10));
    CHECK(ok.ok());
    CHECK(ok.output == "out\n");

    RunResult code = run_program({"sh", "-c", "exit 4"}, with_timeout(10));
    CHECK(code.kind == FailureKind::Other);
    CHECK(code.message == "exit status 4");

    RunResult crash = run_program({"sh", "-c", "kill -SEGV $$"}, with_timeout(10));
    CHECK(crash.kind == FailureKind::Crash);
    CHECK(crash.signal == SIGSEGV);

    auto t0 = std::chrono::steady_clock::now();
    RunResult hang = run_program({"sh", "-c", "sleep 1000"}, with_timeout(0.5));
    CHECK(hang.kind == FailureKind::Timeout);
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 5);

    RunResult missing = run_program({"/no/such/program"}, with_timeout(10));
    CHECK(missing.kind == FailureKind::Other);
    CHECK(missing.message.find("could not start '/no/such/program'") == 0);

    // A grandchild that keeps stdout open does not keep the caller waiting.
    t0 = std::chrono::steady_clock::now();
    RunResult bg = run_program({"sh", "-c", "echo done; sleep 30 &"}, with_timeout(20));
    CHECK(bg.ok());
    CHECK(bg.output == "done\n");
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10);
}

TEST_CASE("a program's environment and log file", "[runner]") {
    setenv("SEXTANT_RUNNER_TEST_DROP", "1", 1);
    setenv("SEXTANT_RUNNER_TEST_KEEP", "kept", 1);
    std::string log = temp_file();
    ChildOptions o;
    o.timeout_s = 10;
    o.log_path = log;
    o.env = {{"SEXTANT_RUNNER_TEST_SET", "set"}};
    o.drop_env = [](const std::string &n) { return n == "SEXTANT_RUNNER_TEST_DROP"; };
    RunResult r = run_program({"sh", "-c",
                               "echo \"${SEXTANT_RUNNER_TEST_DROP:-none} $SEXTANT_RUNNER_TEST_KEEP "
                               "$SEXTANT_RUNNER_TEST_SET\"; echo to-log >&2"},
                              o);
    CHECK(r.ok());
    CHECK(r.output == "none kept set\n");
    CHECK(file_tail(log, 1) == "to-log\n");

    o.capture_stdout = false; // stdout joins stderr in the log
    r = run_program({"sh", "-c", "echo both"}, o);
    CHECK(r.output.empty());
    CHECK(file_tail(log, 1) == "both\n");
    std::remove(log.c_str());
}

TEST_CASE("time stopped does not count against the limit", "[runner]") {
    ChildOptions o;
    o.timeout_s = 1.5;
    Child c = Child::program({"sh", "-c", "sleep 1; echo finished"}, o);
    c.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CHECK(c.active_s() < 0.5);
    c.resume();
    RunResult r = c.wait();
    CHECK(r.ok());
    CHECK(r.output == "finished\n");
    CHECK(r.wall_s < 1.4);
}
