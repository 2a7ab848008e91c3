// Errors: the two kinds of failure the scheduler reports by exception.
// - UserError: the user's to fix (missing estimate, unsupported construct, bad parameter or
//   weights file); its message says what and how.
// - InternalError: an invariant of Sextant's own broke (a bug). SEXTANT_ASSERT throws it with
//   the file, line and the condition; it stays on in Release builds, because a wrong schedule
//   applied silently costs the user more than the check costs the search.
// Measurement failures are neither: they are data (see measure/ and sampler/).
// run_tool turns both into a command-line tool's exit status, the same for every tool.
#pragma once

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sextant {

class UserError : public std::runtime_error {
public:
    explicit UserError(const std::string &what) : std::runtime_error(what) {}
};

class InternalError : public std::logic_error {
public:
    explicit InternalError(const std::string &what) : std::logic_error(what) {}
};

/** A tool's work after its command line is read: returns `body`'s exit status, or reports
 * what it throws on stderr as "TOOL: error: ..." with status 1 (a UserError: the user's to fix)
 * or "TOOL: internal error: ..." with status 3 (anything else: a bug). Status 2 is a bad
 * command line (support/Args.h, exit_usage). */
inline int run_tool(const char *tool, const std::function<int()> &body) {
    try {
        return body();
    } catch (const UserError &e) {
        std::fprintf(stderr, "%s: error: %s\n", tool, e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: internal error: %s\n", tool, e.what());
        return 3;
    }
}

namespace detail {
[[noreturn]] inline void assert_failed(const char *file, int line, const char *cond,
                                       const std::string &msg) {
    std::ostringstream o;
    o << file << ":" << line << ": assertion '" << cond << "' failed";
    if (!msg.empty()) o << ": " << msg;
    throw InternalError(o.str());
}
} // namespace detail

} // namespace sextant

/** Checks an invariant in every build type; throws sextant::InternalError if it fails. `msg`
 * is any expression convertible to std::string, evaluated only on failure. */
#define SEXTANT_ASSERT(cond, msg)                                                                  \
    do {                                                                                           \
        if (!(cond)) ::sextant::detail::assert_failed(__FILE__, __LINE__, #cond, (msg));           \
    } while (0)
