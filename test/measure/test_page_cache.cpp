// drop_cached_pages (measure/PageCache.h): a file's cached pages are gone after it, so the next
// process to map the file reads it into pages of its own.
#include "measure/PageCache.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <linux/magic.h>
#include <string>
#include <sys/vfs.h>
#include <unistd.h>
#include <vector>

using namespace sextant;

TEST_CASE("a file's cached pages are dropped before a timed process maps it", "[measure]") {
    // In the build tree, not /tmp: tmpfs keeps files only in memory and drops nothing.
    const std::string path = "page_cache_test_" + std::to_string(getpid()) + ".bin";
    struct statfs fs {};
    REQUIRE(statfs(".", &fs) == 0);
    if (fs.f_type == TMPFS_MAGIC) {
        WARN("the build tree is on tmpfs, where the page cache is the file: nothing to drop");
        return;
    }
    {
        std::ofstream out(path, std::ios::binary);
        std::vector<char> block(1 << 20, 'x');
        for (int i = 0; i < 4; i++)
            out.write(block.data(), std::streamsize(block.size()));
    }
    {
        // Written (dirty) and read back: every page cached.
        std::ifstream in(path, std::ios::binary);
        std::vector<char> all(4 << 20);
        in.read(all.data(), std::streamsize(all.size()));
    }
    const long pages = (4 << 20) / sysconf(_SC_PAGESIZE);
    CHECK(cached_pages(path) == pages);
    CHECK(drop_cached_pages(path)); // dirty pages written back first, then dropped
    CHECK(cached_pages(path) == 0);
    CHECK_FALSE(drop_cached_pages(path + ".missing"));
    CHECK(cached_pages(path + ".missing") == -1);
    unlink(path.c_str());
}
