// The page cache's copy of a file, dropped before a timed process maps it (docs/MEASURING.md,
// "Where the code lands").
#pragma once

#include <string>

namespace sextant {

/** Drops `path`'s pages from the page cache (written back first if they are dirty: a library
 * just linked), so that the next process to map it reads it into pages of its own drawing. The
 * page cache otherwise keeps one physical placement of a library for every process that maps
 * it, and a timing's fresh processes all inherit it: on bench bilateral_grid two byte-identical
 * libraries of one schedule ran 18.5 and 14.3 ms, process after process, until the slow one's
 * pages were dropped. Best effort: pages some process maps stay, and so does a file system
 * that keeps files only in memory (tmpfs). Returns false if the file could not be opened. */
bool drop_cached_pages(const std::string &path);

} // namespace sextant
