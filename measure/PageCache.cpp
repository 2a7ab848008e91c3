#include "measure/PageCache.h"

#include <fcntl.h>
#include <unistd.h>

namespace sextant {

bool drop_cached_pages(const std::string &path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return true;
}

} // namespace sextant
