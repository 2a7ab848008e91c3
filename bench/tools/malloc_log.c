// malloc_log: an LD_PRELOAD library that prints every malloc of at least 64 KiB to stderr as
// "MLOG <thread id> <bytes> <address>", and the free of such a block as "MFREE <thread id>
// <address>", to see what a schedule's buffers really allocate (Halide folds sliding windows,
// rounds bounds up) and which of them are alive at once. docs/COSTMODEL.md, "Allocation":
//   LD_PRELOAD=build-bench/tools/libsextant_malloc_log.so build-bench/tools/measure/sextant-time \
//     --runtime build-bench/tools/libsextant_bench_runtime.so --time-one LIB.so:FUNC --max-runs 3 \
//     2>&1 | awk '/^MLOG/ {print $3}' | sort -n | uniq -c
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static __thread int printing; // fprintf may malloc: do not log those

// The blocks logged and not yet freed (a schedule holds a few dozen at once).
enum { kSlots = 4096 };
static void *logged[kSlots];
static pthread_mutex_t logged_lock = PTHREAD_MUTEX_INITIALIZER;

static void remember(void *p) {
    pthread_mutex_lock(&logged_lock);
    for (int i = 0; i < kSlots; i++) {
        if (!logged[i]) {
            logged[i] = p;
            break;
        }
    }
    pthread_mutex_unlock(&logged_lock);
}

static int forget(void *p) {
    int found = 0;
    pthread_mutex_lock(&logged_lock);
    for (int i = 0; i < kSlots && !found; i++) {
        if (logged[i] == p) {
            logged[i] = NULL;
            found = 1;
        }
    }
    pthread_mutex_unlock(&logged_lock);
    return found;
}

void *malloc(size_t n) {
    if (!next_malloc) next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    void *p = next_malloc(n);
    if (n >= 65536 && p && !printing) {
        printing = 1;
        remember(p);
        fprintf(stderr, "MLOG %ld %zu %p\n", (long)syscall(SYS_gettid), n, p);
        printing = 0;
    }
    return p;
}

void free(void *p) {
    if (!next_free) next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    // Only blocks of at least 64 KiB were logged: skip the table for every other free.
    if (p && !printing && malloc_usable_size(p) >= 65536 && forget(p)) {
        printing = 1;
        fprintf(stderr, "MFREE %ld %p\n", (long)syscall(SYS_gettid), p);
        printing = 0;
    }
    next_free(p);
}
