// Files: the small file and formatting helpers of the autotuner: whole-file reads, atomic
// writes (write then rename), appended JSON lines that survive a kill, ms / duration text, and
// running a tool with its output in a log file.
#pragma once

#include "measure/Runner.h"

#include <nlohmann/json.hpp>

#include <map>

#include <filesystem>
#include <string>
#include <vector>

namespace sextant {

std::string read_text(const std::filesystem::path &p);
void append_line(const std::filesystem::path &p, const std::string &line);
/** Every parseable line; a line cut short by a kill (the last one) is skipped with a note. */
std::vector<nlohmann::json> read_json_lines(const std::filesystem::path &p);
std::string fmt_ms(double seconds);
/** Runs argv (measure/Runner.h) with `env` added, stdout and stderr appended to log_path, and
 * a time limit; drops the autoscheduler variables of this process when drop_autoscheduler. */
RunResult run_logged(const std::vector<std::string> &argv,
                     const std::map<std::string, std::string> &env, const std::string &log_path,
                     double timeout_s, bool drop_autoscheduler = false);
std::string fmt_duration(double seconds);

} // namespace sextant
