// Process: runs another program (a user's generator, the C++ compiler, a benchmark binary) with
// extra environment variables, its output to a log file, and a wall-clock limit. A crash, a
// non-zero exit or a hang becomes a result the caller reports; the caller never dies with it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace sextant {

struct ProcessResult {
    int exit_code = 0;      ///< when it exited normally
    bool signaled = false;  ///< ended by a signal (including the timeout kill)
    int signal = 0;
    bool timed_out = false; ///< killed after the time limit
    bool spawn_failed = false;
    double wall_s = 0;
    bool ok() const { return !signaled && !timed_out && !spawn_failed && exit_code == 0; }
    /** "" if ok, else e.g. "exit status 1", "crash: signal 11 (Segmentation fault)". */
    std::string failure() const;
};

/** Runs argv[0] (searched on PATH) with the current environment minus every variable for
 * which `drop(name)` is true, plus `env`; stdout and stderr go to `log_path` (appended).
 * timeout_s <= 0: no limit. The child gets its own process group, killed as a whole on timeout.
 * Thread-safe: several may run at once from different threads. */
ProcessResult run_process(const std::vector<std::string> &argv,
                          const std::map<std::string, std::string> &env,
                          const std::string &log_path, double timeout_s,
                          bool (*drop)(const std::string &name) = nullptr);

/** The last `lines` lines of a text file ("" if unreadable). */
std::string file_tail(const std::string &path, int lines);

} // namespace sextant
