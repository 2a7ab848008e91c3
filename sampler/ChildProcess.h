// ChildProcess: runs a function in a forked child and collects what it writes to a pipe, with a
// wall-clock limit. The isolation every measurement uses: a crash, abort or hang of the child
// becomes a result the parent records, never the end of the parent. Not thread-safe (fork).
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>

namespace sextant {

struct ChildResult {
    std::string output;     ///< bytes the child wrote to its result fd
    bool timed_out = false; ///< killed (SIGKILL) after the time limit
    bool signaled = false;  ///< ended by a signal (including the timeout kill)
    int signal = 0;
    int exit_code = 0; ///< when not signaled
    double wall_s = 0; ///< fork to reap
    /** "" for a normal exit 0, else e.g. "crash: signal 11 (Segmentation fault)",
     * "timeout after 30 s", "child exited with status 3". */
    std::string failure() const;
};

/** A running child: its pid, the read end of its result pipe, and the write end of its
 * command pipe (the child's stdin-like channel; see spawn_child). */
struct ChildHandle {
    pid_t pid = -1;
    int out_fd = -1; ///< parent reads what the child writes to its result fd
    int in_fd = -1;  ///< parent writes; the child reads its command fd
};

/** Forks; the child runs body(result_fd, command_fd), then _exit(0) (1 if body throws), with
 * the same isolation as run_in_child. The caller reads out_fd, writes in_fd, closes both, and
 * reaps with reap_child. */
ChildHandle spawn_child(const std::function<void(int result_fd, int command_fd)> &body,
                        bool keep_stderr);

/** Waits for pid and fills r.signaled, r.signal and r.exit_code. */
void reap_child(pid_t pid, ChildResult &r);

/** Forks; the child runs body(fd) (fd: the write end of the result pipe), then _exit(0) (1 if
 * body throws). The child dies with the parent (PR_SET_PDEATHSIG) and, unless keep_stderr,
 * writes its stderr to /dev/null; crash signals get their default action. The parent reads the pipe
 * until EOF or timeout_s (<= 0: no limit), then kills the child and reaps it. */
ChildResult run_in_child(const std::function<void(int fd)> &body, double timeout_s,
                         bool keep_stderr = false);

/** Writes all of `data` to fd (retrying short writes); false on error. */
bool write_all(int fd, const std::string &data);

} // namespace sextant
