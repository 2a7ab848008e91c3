// ChildProcess: runs a function in a forked child and collects what it writes to a pipe, with a
// wall-clock limit. The isolation every measurement uses: a crash, abort or hang of the child
// becomes a result the parent records, never the end of the parent. Not thread-safe (fork).
#pragma once

#include <functional>
#include <string>

namespace sextant {

struct ChildResult {
    std::string output;    ///< bytes the child wrote to its result fd
    bool timed_out = false; ///< killed (SIGKILL) after the time limit
    bool signaled = false;  ///< ended by a signal (including the timeout kill)
    int signal = 0;
    int exit_code = 0;      ///< when not signaled
    double wall_s = 0;      ///< fork to reap
    /** "" for a normal exit 0, else e.g. "crash: signal 11 (Segmentation fault)",
     * "timeout after 30 s", "child exited with status 3". */
    std::string failure() const;
};

/** Forks; the child runs body(fd) (fd: the write end of the result pipe), then _exit(0) (1 if
 * body throws). The child dies with the parent (PR_SET_PDEATHSIG) and, unless keep_stderr,
 * writes its stderr to /dev/null; crash signals get their default action. The parent reads the pipe until EOF or timeout_s (<= 0: no
 * limit), then kills the child and reaps it. */
ChildResult run_in_child(const std::function<void(int fd)> &body, double timeout_s,
                         bool keep_stderr = false);

/** Writes all of `data` to fd (retrying short writes); false on error. */
bool write_all(int fd, const std::string &data);

} // namespace sextant
