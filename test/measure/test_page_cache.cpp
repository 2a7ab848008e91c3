// drop_cached_pages (measure/PageCache.h): a file's cached pages are gone after it, so the next
// process to map the file reads it into pages of its own.
#include "measure/PageCache.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <fstream>
#include <linux/magic.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <vector>

using namespace sextant;

namespace {

/** How many of `path`'s pages are in the page cache (mincore), -1 if it cannot tell. */
long cached_pages(const std::string &path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st {};
    long resident = -1;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        const size_t len = size_t(st.st_size);
        // Mapped without touching: mincore reports what the page cache holds, faults nothing.
        void *p = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) {
            const long page = sysconf(_SC_PAGESIZE);
            std::vector<unsigned char> in((len + size_t(page) - 1) / size_t(page));
            if (mincore(p, len, in.data()) == 0) {
                resident = 0;
                for (unsigned char c : in)
                    resident += c & 1;
            }
            munmap(p, len);
        }
    }
    close(fd);
    return resident;
}

} // namespace

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
