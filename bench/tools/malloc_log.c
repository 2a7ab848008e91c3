// malloc_log: an LD_PRELOAD library that prints every malloc of at least 64 KiB to stderr as
// "MLOG <thread id> <bytes> <address>", to see what a schedule's buffers really allocate
// (Halide folds sliding windows, rounds bounds up). docs/COSTMODEL.md, "Allocation":
//   LD_PRELOAD=build-bench/tools/libsextant_malloc_log.so build-bench/tools/measure/sextant-time \
//     --runtime build-bench/tools/libsextant_bench_runtime.so --time-one LIB.so:FUNC --max-runs 3 \
//     2>&1 | awk '/^MLOG/ {print $3}' | sort -n | uniq -c
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static __thread int printing; // fprintf may malloc: do not log those

void *malloc(size_t n) {
    if (!next_malloc) next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    void *p = next_malloc(n);
    if (n >= 65536 && !printing) {
        printing = 1;
        fprintf(stderr, "MLOG %ld %zu %p\n", (long)syscall(SYS_gettid), n, p);
        printing = 0;
    }
    return p;
}
