#include "ChildProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace sextant {

std::string ChildResult::failure() const {
    char buf[160];
    if (timed_out) {
        std::snprintf(buf, sizeof buf, "timeout after %g s", std::round(wall_s * 10) / 10);
        return buf;
    }
    if (signaled) {
        std::snprintf(buf, sizeof buf, "crash: signal %d (%s)", signal, strsignal(signal));
        return buf;
    }
    if (exit_code != 0) {
        std::snprintf(buf, sizeof buf, "child exited with status %d", exit_code);
        return buf;
    }
    return "";
}

bool write_all(int fd, const std::string &data) {
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += size_t(n);
    }
    return true;
}

ChildHandle spawn_child(const std::function<void(int result_fd, int command_fd)> &body,
                        bool keep_stderr) {
    int out[2], in[2];
    if (pipe(out) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    if (pipe(in) != 0) {
        close(out[0]);
        close(out[1]);
        throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    }
    std::fflush(nullptr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        for (int fd : {out[0], out[1], in[0], in[1]})
            close(fd);
        throw std::runtime_error(std::string("fork: ") + strerror(errno));
    }
    if (pid == 0) {
        close(out[0]);
        close(in[1]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1); // the parent died before prctl
        // A crash must end the child with its signal, whatever handlers the parent installed
        // (a test framework's, say), so the parent can report it.
        for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE, SIGTERM})
            signal(sig, SIG_DFL);
        if (!keep_stderr) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) dup2(null, 2);
        }
        int code = 0;
        try {
            body(out[1], in[0]);
        } catch (...) {
            code = 1;
        }
        close(out[1]);
        _exit(code);
    }
    close(out[1]);
    close(in[0]);
    return {pid, out[0], in[1]};
}

void reap_child(pid_t pid, ChildResult &r) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        r.signaled = true;
        r.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        r.exit_code = WEXITSTATUS(status);
    }
}

ChildResult run_in_child(const std::function<void(int fd)> &body, double timeout_s,
                         bool keep_stderr) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    ChildHandle h = spawn_child([&](int out, int) { body(out); }, keep_stderr);
    close(h.in_fd);
    ChildResult r;
    char buf[65536];
    for (;;) {
        int wait_ms = -1;
        if (timeout_s > 0) {
            double left = timeout_s - std::chrono::duration<double>(Clock::now() - start).count();
            if (left <= 0) {
                r.timed_out = true;
                break;
            }
            wait_ms = int(std::ceil(left * 1000));
        }
        pollfd p = {h.out_fd, POLLIN, 0};
        int n = poll(&p, 1, wait_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) continue; // re-check the clock
        ssize_t got = read(h.out_fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; // EOF: the child closed the pipe (exited)
        r.output.append(buf, size_t(got));
    }
    close(h.out_fd);
    if (r.timed_out) kill(h.pid, SIGKILL);
    reap_child(h.pid, r);
    r.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
}

} // namespace sextant
