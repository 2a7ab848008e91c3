// Args: the command-line reading every Sextant tool shares. A tool walks its arguments with
// next(), compares flag() with its options, and takes a flag's value with value(), number()
// or whole(); values are parsed strictly ("12abc" and "" are not numbers) and every error is
// an ArgError naming the flag, which the tool prints with its usage and exits 2 on
// (exit_usage).
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sextant {

/** A command line the tool cannot use; what() says which argument and why. */
class ArgError : public std::runtime_error {
public:
    explicit ArgError(const std::string &what) : std::runtime_error(what) {}
};

/** The items of `text` between `sep` characters, empty ones included ("a,,b" -> a, "", b;
 * "a," -> a, ""; "" -> none): list-valued options check their items themselves. */
inline std::vector<std::string> split_list(const std::string &text, char sep = ',') {
    std::vector<std::string> items;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, sep))
        items.push_back(item);
    if (!text.empty() && text.back() == sep) items.push_back("");
    return items;
}

/** Every tool's answer to a command line it cannot use: "TOOL: MESSAGE", a blank line and the
 * usage text on stderr, exit status 2. */
[[noreturn]] inline void exit_usage(const char *tool, const std::string &message,
                                    const char *usage) {
    std::fprintf(stderr, "%s: %s\n\n%s", tool, message.c_str(), usage);
    std::exit(2);
}

/** read_args(argc, argv), a tool's reading of its command line, or exit_usage on its ArgError. */
template <typename ReadArgs>
auto parse_command_line(const char *tool, const char *usage, ReadArgs read_args, int argc,
                        char **argv) {
    try {
        return read_args(argc, argv);
    } catch (const ArgError &e) {
        exit_usage(tool, e.what(), usage);
    }
}

class Args {
public:
    Args(int argc, char **argv) : argc_(argc), argv_(argv) {}

    /** Moves to the next argument; false when there is none. */
    bool next() {
        if (i_ + 1 >= argc_) return false;
        flag_ = argv_[++i_];
        return true;
    }
    /** The argument next() moved to. */
    const std::string &flag() const { return flag_; }

    /** The argument after the flag (consumed). */
    std::string value() {
        if (i_ + 1 >= argc_) throw ArgError(flag_ + " needs a value");
        return argv_[++i_];
    }
    /** value() as a number >= lo. */
    double number(double lo = -1e308) {
        const std::string v = value();
        char *end = nullptr;
        errno = 0;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end || errno == ERANGE)
            throw ArgError(flag_ + ": '" + v + "' is not a number");
        if (x < lo) throw ArgError(flag_ + ": " + v + " is below " + num(lo));
        return x;
    }
    /** value() as a whole number >= lo. */
    int64_t whole(int64_t lo = INT64_MIN) {
        const std::string v = value();
        char *end = nullptr;
        errno = 0;
        const long long x = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end || errno == ERANGE)
            throw ArgError(flag_ + ": '" + v + "' is not a whole number");
        if (x < lo) throw ArgError(flag_ + ": " + v + " is below " + std::to_string(lo));
        return x;
    }
    /** value() as an int >= lo. */
    int integer(int lo = INT32_MIN) {
        const int64_t x = whole(lo);
        if (x > INT32_MAX) throw ArgError(flag_ + ": " + std::to_string(x) + " is too large");
        return int(x);
    }
    /** value() as a number > 0. */
    double positive() {
        const double x = number();
        if (!(x > 0)) throw ArgError(flag_ + ": expected a positive number");
        return x;
    }
    /** value() as an unsigned 64-bit number (seeds). */
    uint64_t seed() {
        const std::string v = value();
        char *end = nullptr;
        errno = 0;
        const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
        if (v.empty() || v[0] == '-' || *end || errno == ERANGE)
            throw ArgError(flag_ + ": '" + v + "' is not a seed (a whole number >= 0)");
        return x;
    }
    /** For a flag the tool does not know. */
    [[noreturn]] void unknown() const { throw ArgError("unknown argument '" + flag_ + "'"); }

private:
    static std::string num(double x) {
        std::string s = std::to_string(x);
        s.erase(s.find_last_not_of('0') + 1);
        if (!s.empty() && s.back() == '.') s.pop_back();
        return s;
    }
    int argc_;
    char **argv_;
    int i_ = 0;
    std::string flag_;
};

} // namespace sextant
