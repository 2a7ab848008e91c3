#include "measure/PageCache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace sextant {

bool drop_cached_pages(const std::string &path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return true;
}

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

} // namespace sextant
