#include "Files.h"

#include "support/Errors.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace sextant {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string read_text(const fs::path &p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void append_line(const fs::path &p, const std::string &line) {
    std::ofstream out(p, std::ios::app);
    if (!out) throw UserError("cannot append to '" + p.string() + "'");
    out << line << "\n";
    out.flush();
}

std::vector<json> read_json_lines(const fs::path &p) {
    std::vector<json> out;
    std::ifstream in(p);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        n++;
        if (line.empty()) continue;
        try {
            out.push_back(json::parse(line));
        } catch (const std::exception &e) {
            // A line cut short by a kill is the only way this file gets a bad line; it is the
            // last one, and what it described is in the SampleStore.
            std::fprintf(stderr, "sextant-autotune: ignoring unreadable line %d of %s\n", n,
                         p.string().c_str());
        }
    }
    return out;
}

RunResult run_logged(const std::vector<std::string> &argv,
                     const std::map<std::string, std::string> &env, const std::string &log_path,
                     double timeout_s, bool drop_autoscheduler) {
    ChildOptions o;
    o.timeout_s = timeout_s;
    o.capture_stdout = false;
    o.log_path = log_path;
    o.env = env;
    if (drop_autoscheduler) o.drop_env = autoscheduler_env;
    return run_program(argv, o);
}

std::string fmt_ms(double s) {
    char b[32];
    std::snprintf(b, sizeof(b), "%.3f ms", s * 1e3);
    return b;
}

std::string fmt_duration(double s) {
    char b[32];
    int m = int(s) / 60;
    std::snprintf(b, sizeof(b), "%dm%02ds", m, int(s) % 60);
    return b;
}

} // namespace sextant
