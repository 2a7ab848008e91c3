// Files: the small file and formatting helpers of the autotuner: whole-file reads, atomic
// writes (write then rename), appended JSON lines that survive a kill, and ms / duration text.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace sextant {

std::string read_text(const std::filesystem::path &p);
/** Writes via a temporary file and rename, so readers never see a half-written file. */
void write_text(const std::filesystem::path &p, const std::string &s);
void append_line(const std::filesystem::path &p, const std::string &line);
/** Every parseable line; a line cut short by a kill (the last one) is skipped with a note. */
std::vector<nlohmann::json> read_json_lines(const std::filesystem::path &p);
/** True for the environment variables that steer autoschedulers (SEXTANT_*, HL_*). */
bool autoscheduler_env(const std::string &name);
std::string fmt_ms(double seconds);
std::string fmt_duration(double seconds);

} // namespace sextant
