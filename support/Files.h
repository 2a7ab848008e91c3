// Files: the file operations several layers share. Writing a file that others read while it
// is rewritten (weights, an autotuner's best schedule, a training report) goes through a
// temporary file renamed over the old one, so a reader sees the old or the new file whole,
// never half of one; and a loaded library finds files installed beside it.
#pragma once

#include "support/Errors.h"

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace sextant {

/** The whole file at `path`; throws UserError naming `what` and the file if it cannot be read. */
inline std::string read_whole_file(const std::filesystem::path &path,
                                   const std::string &what = "file") {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UserError("cannot read " + what + " '" + path.string() + "'");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw UserError("error while reading " + what + " '" + path.string() + "'");
    return bytes;
}

/** Writes `bytes` to `path` whole: to `path`.tmp, then renamed over `path`. Throws UserError
 * naming the file if it cannot. */
inline void write_file_atomically(const std::filesystem::path &path, std::string_view bytes) {
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw UserError("cannot write '" + tmp.string() + "'");
        out.write(bytes.data(), std::streamsize(bytes.size()));
        if (!out) throw UserError("error while writing '" + tmp.string() + "'");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        throw UserError("cannot rename '" + tmp.string() + "' to '" + path.string() +
                        "': " + ec.message());
}

/** Copies `from` over `to` whole (a copy to `to`.tmp, then a rename). */
inline void copy_file_atomically(const std::filesystem::path &from,
                                 const std::filesystem::path &to) {
    std::filesystem::path tmp = to;
    tmp += ".tmp";
    std::error_code ec;
    std::filesystem::copy_file(from, tmp, std::filesystem::copy_options::overwrite_existing, ec);
    if (!ec) std::filesystem::rename(tmp, to, ec);
    if (ec)
        throw UserError("cannot copy '" + from.string() + "' to '" + to.string() +
                        "': " + ec.message());
}

/** The directory of the binary (executable or shared library) that holds `symbol`, with a
 * trailing '/'; "" if the dynamic loader cannot tell. */
inline std::string directory_of_binary_holding(const void *symbol) {
    Dl_info info;
    if (!dladdr(symbol, &info) || !info.dli_fname) return "";
    const std::string so = info.dli_fname;
    return so.substr(0, so.find_last_of('/') + 1);
}

} // namespace sextant
