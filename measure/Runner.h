// Runner: the one way Sextant runs a child process — a forked function (a JIT compile, a
// candidate search, a fuzzed pipeline) or an exec'd program (a generator, the linker, a timed
// pipeline driver) — with a wall-clock limit, and what became of it as a typed failure kind.
// A crash, a hang or a non-zero exit of the child is a result the caller records, never the
// end of the caller. Knows nothing of Halide or of timing; see Protocol.h for the timing rules.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace sextant {

/** Why a measurement or a child's work produced no result. The runner itself only tells
 * Timeout, Crash and Other apart; WrongOutput and CompileError are set by callers that know
 * what the child was doing (a failed output check, a failed schedule or code generation). */
enum class FailureKind { None, Timeout, Crash, WrongOutput, CompileError, Other };

/** "ok", "timeout", "crash", "wrong_output", "compile_error", "other". */
const char *failure_kind_name(FailureKind k);
/** The inverse of failure_kind_name; unknown names are Other. */
FailureKind parse_failure_kind(const std::string &name);

/** How a child ended, as the parent saw it. */
struct RunResult {
    FailureKind kind = FailureKind::None;
    /** "" when kind is None; else e.g. "crash: signal 11 (Segmentation fault)", "timeout after
     * 30 s", "exit status 3", "could not start 'foo': No such file or directory". */
    std::string message;
    std::string output;    ///< what the child wrote to its result pipe (see ChildOptions)
    int exit_code = 0;     ///< when it exited normally
    bool signaled = false; ///< ended by a signal (the timeout kill included)
    int signal = 0;
    bool timed_out = false; ///< killed (SIGKILL) after its time limit
    double wall_s = 0;      ///< start to end, less the time it spent stopped (Child::stop)
    long max_rss_kib = 0;   ///< wait4's peak RSS of the child (and children it waited for)
    double user_s = 0, sys_s = 0;
    bool ok() const { return kind == FailureKind::None; }
};

struct ChildOptions {
    /** Running-time limit in seconds (time spent stopped does not count); <= 0: none. */
    double timeout_s = 0;
    /** Programs: stdout goes to the result pipe (RunResult::output). When false, stdout goes
     * where stderr goes. Functions always get the pipe's write end as their first argument. */
    bool capture_stdout = true;
    /** stderr (and stdout when not captured) is appended to this file; "" = /dev/null, unless
     * keep_stderr. */
    std::string log_path;
    bool keep_stderr = false; ///< inherit the parent's stderr instead
    /** Programs: variables set in the child's environment (after `drop_env`). */
    std::map<std::string, std::string> env;
    /** Programs: variables of this process's environment the child does not get. */
    std::function<bool(const std::string &name)> drop_env;
    /** The child leads its own process group, and stop/resume/kill reach the whole group (a
     * compiler's own children, say). False: it stays in the caller's group. */
    bool own_process_group = true;
};

/** What a Child owns and knows, apart from its methods: plain values, so a move is one
 * member-wise assignment (Child's move operations). */
struct ChildState {
    using Clock = std::chrono::steady_clock;
    pid_t pid_ = -1;
    int out_fd_ = -1, in_fd_ = -1;
    int pidfd_ = -1;
    bool is_program_ = false;
    bool group_ = true;
    std::string start_error_; ///< why exec failed ("" if it did not)
    std::string output_;
    int status_ = 0;
    struct rusage ru_ {};
    double timeout_s_ = 0;
    bool stopped_ = false, paused_ = false, timed_out_ = false, reaped_ = false;
    Clock::time_point started_, paused_since_;
    double paused_s_ = 0;
};

/** A running child. Not copyable; destroying a Child that was not waited for kills and reaps
 * it. Starting one is thread-safe for programs (everything is prepared before fork and the
 * child only execs); a function child runs arbitrary code after fork, so start those only
 * from a single-threaded process. */
class Child : private ChildState {
public:
    /** Forks; the child runs body(result_fd, command_fd) and _exit(0) (1 if it throws).
     * result_fd is the write end of the result pipe; command_fd the read end of a pipe the
     * parent writes with command_fd(). The child dies with the parent (PR_SET_PDEATHSIG) and
     * crash signals get their default action, whatever handlers the parent installed. */
    static Child function(const std::function<void(int result_fd, int command_fd)> &body,
                          const ChildOptions &opt);
    /** Forks and execs argv (argv[0] is searched on PATH); stdin is /dev/null. If exec fails
     * the result is Other with "could not start ...". */
    static Child program(const std::vector<std::string> &argv, const ChildOptions &opt);

    Child() = default;
    Child(Child &&o) noexcept;
    Child &operator=(Child &&o) noexcept;
    Child(const Child &) = delete;
    Child &operator=(const Child &) = delete;
    ~Child();

    pid_t pid() const { return pid_; }
    /** The read end of the result pipe (-1 once at EOF). */
    int output_fd() const { return out_fd_; }
    /** The write end of the child's command pipe (functions only; -1 otherwise). */
    int command_fd() const { return in_fd_; }

    /** Reads what is available on the result pipe without blocking past `wait_ms` (-1: until
     * something comes). Returns false once the pipe is at EOF. */
    bool read_output(int wait_ms);
    const std::string &output() const { return output_; }

    /** SIGSTOP / SIGCONT (to the group when own_process_group); stopped time does not count
     * against the timeout or wall_s. */
    void stop();
    void resume();
    bool stopped() const { return stopped_; }
    /** Pauses or restarts the timeout clock without signalling (a child idle by protocol,
     * waiting for its turn). */
    void pause_clock();
    void unpause_clock();
    /** Seconds it has been running (neither stopped nor paused). */
    double active_s() const;
    /** Seconds left before its timeout (huge when it has none). */
    double time_left_s() const;
    /** Kills it (SIGKILL) as having run past its time limit. */
    void kill_timed_out();
    /** Kills it without calling it a timeout. */
    void kill();

    /** Reads the pipe to EOF (killing the child when its time runs out), then reaps it. For
     * programs, also returns once the program has exited even if a grandchild holds the pipe. */
    RunResult wait();
    /** Closes the pipes and reaps (blocking); for callers that read the pipe themselves. */
    RunResult reap();

private:
    /** Kills and reaps a child still running, and closes the pipes. */
    void release();
    void close_fds();
    /** Collects the exit status (waiting for it when `block`); true once reaped. */
    bool try_reap(bool block);
};

/** Child::function(body).wait(), with body(result_fd). */
RunResult run_function(const std::function<void(int result_fd)> &body, const ChildOptions &opt);
/** Child::program(argv).wait(). */
RunResult run_program(const std::vector<std::string> &argv, const ChildOptions &opt);

/** Writes all of `data` to fd (retrying short writes); false on error. */
bool write_all(int fd, const std::string &data);

/** The last `lines` lines of a text file ("" if unreadable). */
std::string file_tail(const std::string &path, int lines);

/** True for the environment variables that steer autoschedulers (SEXTANT_*, HL_*): a
 * ChildOptions::drop_env for a generator run that must get only the settings it is given. */
bool autoscheduler_env(const std::string &name);

} // namespace sextant
