#include "measure/Runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>

extern char **environ;

namespace sextant {

namespace {

[[noreturn]] void throw_errno(const char *what) {
    throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

/** Two close-on-exec pipes, or none (and an exception). */
void two_pipes(int a[2], int b[2]) {
    if (pipe2(a, O_CLOEXEC) != 0) throw_errno("pipe");
    if (pipe2(b, O_CLOEXEC) != 0) {
        close(a[0]);
        close(a[1]);
        throw_errno("pipe");
    }
}

/** A pidfd for pid (readable once it has exited), or -1 where the kernel has none. */
int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
    int fd = int(syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#else
    (void)pid;
    return -1;
#endif
}

/** What happens in every child right after fork, before its own work. */
void child_common(pid_t parent, bool own_group) {
    if (own_group) setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); // the parent died before prctl
    // A crash must end the child with its signal, whatever handlers the parent installed (a
    // test framework's, say), so the parent can tell a crash from an exit.
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE, SIGTERM, SIGINT})
        signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
}

/** The fd the child's stderr goes to, opened before fork: a log file, /dev/null, or -1 to
 * inherit. */
int open_stderr_target(const ChildOptions &opt) {
    if (!opt.log_path.empty()) {
        int fd = open(opt.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) return fd;
    }
    if (opt.keep_stderr) return -1;
    return open("/dev/null", O_WRONLY | O_CLOEXEC);
}

} // namespace

const char *failure_kind_name(FailureKind k) {
    switch (k) {
    case FailureKind::None:
        return "ok";
    case FailureKind::Timeout:
        return "timeout";
    case FailureKind::Crash:
        return "crash";
    case FailureKind::WrongOutput:
        return "wrong_output";
    case FailureKind::CompileError:
        return "compile_error";
    case FailureKind::Other:
        return "other";
    }
    return "other";
}

FailureKind parse_failure_kind(const std::string &name) {
    for (FailureKind k : {FailureKind::None, FailureKind::Timeout, FailureKind::Crash,
                          FailureKind::WrongOutput, FailureKind::CompileError})
        if (name == failure_kind_name(k)) return k;
    return FailureKind::Other;
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

std::string file_tail(const std::string &path, int lines) {
    std::ifstream in(path);
    std::deque<std::string> last;
    std::string line;
    while (std::getline(in, line)) {
        last.push_back(line);
        if (int(last.size()) > lines) last.pop_front();
    }
    std::string out;
    for (const std::string &l : last)
        out += l + "\n";
    return out;
}

Child Child::function(const std::function<void(int, int)> &body, const ChildOptions &opt) {
    int out[2], in[2];
    two_pipes(out, in);
    int err_fd = open_stderr_target(opt);
    std::fflush(nullptr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        for (int fd : {out[0], out[1], in[0], in[1], err_fd})
            if (fd >= 0) close(fd);
        throw_errno("fork");
    }
    if (pid == 0) {
        close(out[0]);
        close(in[1]);
        child_common(parent, opt.own_process_group);
        if (err_fd >= 0) dup2(err_fd, 2);
        int code = 0;
        try {
            body(out[1], in[0]);
        } catch (...) {
            code = 1;
        }
        std::fflush(nullptr);
        _exit(code);
    }
    if (opt.own_process_group) setpgid(pid, pid); // also here, so a kill right away reaches it
    close(out[1]);
    close(in[0]);
    if (err_fd >= 0) close(err_fd);
    Child c;
    c.pid_ = pid;
    c.out_fd_ = out[0];
    c.in_fd_ = in[1];
    c.pidfd_ = open_pidfd(pid);
    c.group_ = opt.own_process_group;
    c.timeout_s_ = opt.timeout_s;
    c.started_ = Clock::now();
    return c;
}

Child Child::program(const std::vector<std::string> &argv, const ChildOptions &opt) {
    if (argv.empty()) throw std::invalid_argument("Child::program: empty argv");
    // Everything the child needs is built before fork: after fork in a threaded process only
    // async-signal-safe calls are allowed.
    std::vector<std::string> env_strings;
    for (char **e = environ; e && *e; e++) {
        std::string s = *e;
        std::string name = s.substr(0, s.find('='));
        if (opt.env.count(name) || (opt.drop_env && opt.drop_env(name))) continue;
        env_strings.push_back(s);
    }
    for (const auto &kv : opt.env)
        env_strings.push_back(kv.first + "=" + kv.second);
    std::vector<char *> envp, args;
    for (std::string &s : env_strings)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (std::string &s : argv_copy)
        args.push_back(s.data());
    args.push_back(nullptr);

    int out[2], status_pipe[2];
    two_pipes(out, status_pipe);
    int err_fd = open_stderr_target(opt);
    int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        for (int fd : {out[0], out[1], status_pipe[0], status_pipe[1], err_fd, null_in})
            if (fd >= 0) close(fd);
        throw_errno("fork");
    }
    if (pid == 0) {
        child_common(parent, opt.own_process_group);
        if (null_in >= 0) dup2(null_in, 0);
        if (opt.capture_stdout)
            dup2(out[1], 1);
        else if (err_fd >= 0)
            dup2(err_fd, 1);
        if (err_fd >= 0) dup2(err_fd, 2);
        execvpe(args[0], args.data(), envp.data());
        int e = errno;
        if (write(status_pipe[1], &e, sizeof e) < 0) {
        }
        _exit(127);
    }
    if (opt.own_process_group) setpgid(pid, pid);
    close(out[1]);
    close(status_pipe[1]);
    for (int fd : {err_fd, null_in})
        if (fd >= 0) close(fd);
    Child c;
    c.pid_ = pid;
    c.out_fd_ = out[0];
    c.pidfd_ = open_pidfd(pid);
    c.is_program_ = true;
    c.group_ = opt.own_process_group;
    c.timeout_s_ = opt.timeout_s;
    c.started_ = Clock::now();
    // The status pipe closes on a successful exec; an errno arrives if it failed.
    int e = 0;
    ssize_t n;
    while ((n = read(status_pipe[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    close(status_pipe[0]);
    if (n == ssize_t(sizeof e)) {
        c.start_error_ = "could not start '" + argv[0] + "': " + std::strerror(e);
        c.try_reap(true);
    }
    return c;
}

Child::Child(Child &&o) noexcept {
    *this = std::move(o);
}

Child &Child::operator=(Child &&o) noexcept {
    if (this == &o) return *this;
    release();
    static_cast<ChildState &>(*this) = std::move(o);
    // `o` owns no process and no pipe now, and waiting for it returns at once.
    static_cast<ChildState &>(o) = ChildState{};
    o.reaped_ = true;
    return *this;
}

Child::~Child() {
    release();
}

void Child::release() {
    if (pid_ > 0 && !reaped_) {
        kill();
        reap();
    }
    close_fds();
}

void Child::close_fds() {
    for (int *fd : {&out_fd_, &in_fd_, &pidfd_}) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
    }
}

bool Child::read_output(int wait_ms) {
    if (out_fd_ < 0) return false;
    pollfd p = {out_fd_, POLLIN, 0};
    int n = poll(&p, 1, wait_ms);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return true;
    char buf[65536];
    ssize_t got = read(out_fd_, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (got <= 0) {
        close(out_fd_);
        out_fd_ = -1;
        return false;
    }
    output_.append(buf, size_t(got));
    return true;
}

void Child::stop() {
    if (stopped_ || reaped_ || pid_ <= 0) return;
    ::kill(group_ ? -pid_ : pid_, SIGSTOP);
    stopped_ = true;
    pause_clock();
}

void Child::resume() {
    if (!stopped_ || reaped_ || pid_ <= 0) return;
    ::kill(group_ ? -pid_ : pid_, SIGCONT);
    stopped_ = false;
    unpause_clock();
}

void Child::pause_clock() {
    if (paused_) return;
    paused_ = true;
    paused_since_ = Clock::now();
}

void Child::unpause_clock() {
    if (!paused_) return;
    paused_ = false;
    paused_s_ += std::chrono::duration<double>(Clock::now() - paused_since_).count();
}

double Child::active_s() const {
    auto now = Clock::now();
    double total = std::chrono::duration<double>(now - started_).count();
    double p =
        paused_s_ + (paused_ ? std::chrono::duration<double>(now - paused_since_).count() : 0);
    return total - p;
}

double Child::time_left_s() const {
    if (timeout_s_ <= 0 || paused_) return 1e30;
    return timeout_s_ - active_s();
}

void Child::kill_timed_out() {
    if (reaped_ || pid_ <= 0) return;
    timed_out_ = true;
    kill();
}

void Child::kill() {
    if (reaped_ || pid_ <= 0) return;
    ::kill(group_ ? -pid_ : pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    if (stopped_) ::kill(group_ ? -pid_ : pid_, SIGCONT);
}

RunResult Child::wait() {
    while (!reaped_) {
        double left = time_left_s();
        if (left <= 0) {
            kill_timed_out();
            break;
        }
        pollfd fds[2];
        int n = 0;
        if (out_fd_ >= 0) fds[n++] = {out_fd_, POLLIN, 0};
        if (pidfd_ >= 0) fds[n++] = {pidfd_, POLLIN, 0};
        int wait_ms = left > 1e20 ? -1 : int(std::ceil(left * 1000));
        if (pidfd_ < 0) wait_ms = wait_ms < 0 ? 20 : std::min(wait_ms, 20); // poll for exit
        if (n == 0) {
            // No pidfd and the pipe is closed: check for exit now and then.
            if (try_reap(false)) break;
            usleep(20000);
            continue;
        }
        int got = poll(fds, nfds_t(n), wait_ms);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        bool exited = false;
        for (int i = 0; i < n; i++) {
            if (!fds[i].revents) continue;
            if (fds[i].fd == out_fd_) {
                read_output(0);
            } else if (fds[i].fd == pidfd_) {
                exited = true;
            }
        }
        if (!exited && pidfd_ < 0 && try_reap(false)) exited = true;
        if (exited) {
            // Drain what the child wrote before it exited (a grandchild may hold the pipe open,
            // so do not wait for EOF).
            if (out_fd_ >= 0) {
                fcntl(out_fd_, F_SETFL, fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
                while (read_output(0)) {
                    pollfd p = {out_fd_, POLLIN, 0};
                    if (poll(&p, 1, 0) <= 0) break;
                }
            }
            break;
        }
    }
    return reap();
}

RunResult Child::reap() {
    RunResult r;
    r.output = std::move(output_);
    output_.clear();
    close_fds();
    if (pid_ <= 0) {
        r.kind = FailureKind::Other;
        r.message = "no child";
        return r;
    }
    try_reap(true);
    const int status = status_;
    const rusage &ru = ru_;
    if (paused_) unpause_clock();
    r.wall_s = active_s();
    r.max_rss_kib = ru.ru_maxrss;
    r.user_s = double(ru.ru_utime.tv_sec) + 1e-6 * double(ru.ru_utime.tv_usec);
    r.sys_s = double(ru.ru_stime.tv_sec) + 1e-6 * double(ru.ru_stime.tv_usec);
    if (WIFSIGNALED(status)) {
        r.signaled = true;
        r.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        r.exit_code = WEXITSTATUS(status);
    }
    r.timed_out = timed_out_;
    char buf[200];
    if (timed_out_) {
        r.kind = FailureKind::Timeout;
        std::snprintf(buf, sizeof buf, "timeout after %g s", std::round(timeout_s_ * 10) / 10);
        r.message = buf;
    } else if (!start_error_.empty()) {
        r.kind = FailureKind::Other;
        r.message = start_error_;
    } else if (r.signaled) {
        r.kind = FailureKind::Crash;
        std::snprintf(buf, sizeof buf, "crash: signal %d (%s)", r.signal, strsignal(r.signal));
        r.message = buf;
    } else if (r.exit_code != 0) {
        r.kind = FailureKind::Other;
        r.message = "exit status " + std::to_string(r.exit_code);
    }
    return r;
}

bool Child::try_reap(bool block) {
    if (reaped_) return true;
    if (pid_ <= 0) return false;
    for (;;) {
        pid_t w = wait4(pid_, &status_, block ? 0 : WNOHANG, &ru_);
        if (w < 0 && errno == EINTR) continue;
        if (w == 0) return false;
        reaped_ = true; // w == pid_, or an error (already reaped elsewhere)
        return true;
    }
}

RunResult run_function(const std::function<void(int)> &body, const ChildOptions &opt) {
    Child c = Child::function([&](int out, int) { body(out); }, opt);
    return c.wait();
}

RunResult run_program(const std::vector<std::string> &argv, const ChildOptions &opt) {
    Child c = Child::program(argv, opt);
    return c.wait();
}

bool autoscheduler_env(const std::string &name) {
    return name.rfind("SEXTANT_", 0) == 0 || name.rfind("HL_", 0) == 0;
}

} // namespace sextant
