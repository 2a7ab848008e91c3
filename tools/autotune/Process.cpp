#include "Process.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace sextant {

std::string ProcessResult::failure() const {
    if (spawn_failed) return "could not start the program";
    if (timed_out) return "timeout after " + std::to_string(int(wall_s)) + " s";
    if (signaled) return "crash: signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    if (exit_code != 0) return "exit status " + std::to_string(exit_code);
    return "";
}

ProcessResult run_process(const std::vector<std::string> &argv,
                          const std::map<std::string, std::string> &env,
                          const std::string &log_path, double timeout_s,
                          bool (*drop)(const std::string &name)) {
    // Everything the child needs is built before fork: after fork in a threaded process only
    // async-signal-safe calls are allowed.
    std::vector<std::string> env_strings;
    for (char **e = environ; e && *e; e++) {
        std::string s = *e;
        std::string name = s.substr(0, s.find('='));
        if (env.count(name) || (drop && drop(name))) continue;
        env_strings.push_back(s);
    }
    for (const auto &kv : env) env_strings.push_back(kv.first + "=" + kv.second);
    std::vector<char *> envp, args;
    for (std::string &s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (std::string &s : argv_copy) args.push_back(s.data());
    args.push_back(nullptr);

    ProcessResult r;
    int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid < 0) {
        if (log_fd >= 0) close(log_fd);
        r.spawn_failed = true;
        return r;
    }
    if (pid == 0) {
        setpgid(0, 0);
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) dup2(null_fd, 0);
        if (log_fd >= 0) {
            dup2(log_fd, 1);
            dup2(log_fd, 2);
        }
        execvpe(args[0], args.data(), envp.data());
        const char msg[] = "run_process: exec failed\n";
        if (write(2, msg, sizeof(msg) - 1) < 0) {
        }
        _exit(127);
    }
    setpgid(pid, pid); // also here, so a kill right away reaches the group
    if (log_fd >= 0) close(log_fd);
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (timeout_s > 0 && elapsed > timeout_s) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (WIFSIGNALED(status)) {
        r.signaled = true;
        r.signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        r.exit_code = WEXITSTATUS(status);
        if (r.exit_code == 127) {
            std::string tail = file_tail(log_path, 1);
            if (tail.find("run_process: exec failed") != std::string::npos) r.spawn_failed = true;
        }
    }
    return r;
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
    for (const std::string &l : last) out += l + "\n";
    return out;
}

} // namespace sextant
