// sextant_malloc_trim_bench: the allocator figures behind the cost model's allocator term
// (docs/COSTMODEL.md, "Allocation"). Micro-benchmark: cost of malloc(N)+touch+free(N) in a loop
// with glibc, in the main thread or a second thread; and the raw cost of a minor page fault. usage:
//   sextant_malloc_trim_bench pair BYTES main|thread [touch=1] [bufs=1]
//       loop { p_i = malloc(BYTES) for i<bufs; touch every 4 KB page of each; free all }
//       prints ns/iter, minor faults/iter (this thread), ns/fault (after subtracting
//       the same loop's cost on pre-faulted memory)
//   sextant_malloc_trim_bench fault MB main|thread
//       fresh mmap(MB) + touch each page + munmap, and madvise(DONTNEED)+retouch of
//       one mapping: ns per 4 KB page fault.
// Run every configuration in a fresh process: glibc's dynamic mmap/trim thresholds
// change after the first free of an mmapped chunk.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

static long thread_minflt() {
    rusage r;
    getrusage(RUSAGE_THREAD, &r);
    return r.ru_minflt;
}
static double now_ns() {
    return std::chrono::duration<double, std::nano>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
static volatile char sink;

static void touch(char *p, size_t n) {
    for (size_t o = 0; o < n; o += 4096)
        p[o] = (char)o;
    sink = p[n - 1];
}

static void pair_bench(size_t bytes, bool do_touch, int bufs) {
    std::vector<char *> ps(bufs);
    // iterations: aim at ~256 MB touched, between 200 and 20000
    long iters = (256l << 20) / (long)(bytes * bufs);
    if (iters < 200) iters = 200;
    if (iters > 20000) iters = 20000;
    // one iteration of a parallel loop's body: allocate, (touch,) free in reverse
    auto cycle = [&] {
        for (int i = 0; i < bufs; i++)
            ps[i] = (char *)malloc(bytes);
        if (do_touch)
            for (int i = 0; i < bufs; i++)
                touch(ps[i], bytes);
        for (int i = bufs - 1; i >= 0; i--)
            free(ps[i]);
    };
    // warm-up (also lets glibc adapt its thresholds once)
    for (int w = 0; w < 20; w++)
        cycle();
    long f0 = thread_minflt();
    double t0 = now_ns();
    for (long it = 0; it < iters; it++)
        cycle();
    double t1 = now_ns();
    long f1 = thread_minflt();
    // reference: same touches on memory that stays mapped (no malloc, no faults)
    for (int i = 0; i < bufs; i++) {
        ps[i] = (char *)malloc(bytes);
        touch(ps[i], bytes);
    }
    double r0 = now_ns();
    for (long it = 0; it < iters; it++)
        if (do_touch)
            for (int i = 0; i < bufs; i++)
                touch(ps[i], bytes);
    double r1 = now_ns();
    for (int i = 0; i < bufs; i++)
        free(ps[i]);
    double per = (t1 - t0) / iters, ref = (r1 - r0) / iters;
    double flt = double(f1 - f0) / iters;
    printf("bytes %8zu bufs %d touch %d: %9.0f ns/iter (touch-only %6.0f), faults/iter %7.2f, "
           "pages/iter %5zu, ns/fault %6.0f\n",
           bytes, bufs, (int)do_touch, per, ref, flt, bufs * ((bytes + 4095) / 4096),
           flt > 0.5 ? (per - ref) / flt : 0.0);
}

static void fault_bench(size_t mb) {
    size_t n = mb << 20, pages = n / 4096;
    double best_fresh = 1e30, best_redo = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        char *p =
            (char *)mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        madvise(p, n, MADV_NOHUGEPAGE);
        long f0 = thread_minflt();
        double t0 = now_ns();
        touch(p, n);
        double t1 = now_ns();
        long f1 = thread_minflt();
        madvise(p, n, MADV_DONTNEED);
        double t2 = now_ns();
        touch(p, n);
        double t3 = now_ns();
        long f2 = thread_minflt();
        munmap(p, n);
        best_fresh = std::min(best_fresh, (t1 - t0) / (f1 - f0));
        best_redo = std::min(best_redo, (t3 - t2) / (f2 - f1));
        printf(
            "  rep %d: fresh mmap %5.0f ns/fault (%ld faults), after MADV_DONTNEED %5.0f ns/fault "
            "(madvise+touch, %ld faults)\n",
            rep, (t1 - t0) / (f1 - f0), f1 - f0, (t3 - t2) / (f2 - f1), f2 - f1);
    }
    printf("fault %zu MB (%zu pages): best fresh %.0f ns/page, best re-fault %.0f ns/page\n", mb,
           pages, best_fresh, best_redo);
}

// Fixed + per-page cost of what glibc does when it trims: madvise(MADV_DONTNEED) of a
// range (non-main arenas: shrink_heap) or brk shrink (main arena: systrim), then
// re-touching (faulting) the range.
static void trim_bench(size_t pages) {
    size_t n = pages * 4096;
    int iters = pages <= 16 ? 2000 : pages <= 256 ? 300 : 50;
    char *p = (char *)mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(p, n, MADV_NOHUGEPAGE);
    touch(p, n);
    double tm = 0, tt = 0;
    long f0 = thread_minflt();
    for (int i = 0; i < iters; i++) {
        double a = now_ns();
        madvise(p, n, MADV_DONTNEED);
        double b = now_ns();
        touch(p, n);
        double c = now_ns();
        tm += b - a;
        tt += c - b;
    }
    long f1 = thread_minflt();
    munmap(p, n);
    // brk variant (what the main arena's systrim does)
    char *base = (char *)sbrk(0);
    double bg = 0, bt = 0, bs = 0;
    for (int i = 0; i < iters; i++) {
        double a = now_ns();
        sbrk((intptr_t)n);
        double b = now_ns();
        touch(base, n);
        double c = now_ns();
        sbrk(-(intptr_t)n);
        double d = now_ns();
        bg += b - a;
        bt += c - b;
        bs += d - c;
    }
    printf(
        "pages %5zu: madvise %7.0f ns/call, retouch %8.0f ns (%5.0f ns/page, %.1f faults/iter) | "
        "brk grow %6.0f, touch %8.0f (%5.0f ns/page), brk shrink %7.0f ns\n",
        pages, tm / iters, tt / iters, tt / iters / pages, double(f1 - f0) / iters, bg / iters,
        bt / iters, bt / iters / pages, bs / iters);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: see source\n");
        return 1;
    }
    std::string mode = argv[1];
    size_t arg = strtoull(argv[2], nullptr, 0);
    bool in_thread = std::string(argv[3]) == "thread";
    bool do_touch = argc > 4 ? atoi(argv[4]) != 0 : true;
    int bufs = argc > 5 ? atoi(argv[5]) : 1;
    std::function<void()> fn;
    if (mode == "pair")
        fn = [&] { pair_bench(arg, do_touch, bufs); };
    else if (mode == "trim")
        fn = [&] { trim_bench(arg); };
    else
        fn = [&] { fault_bench(arg); };
    printf("[%s] ", in_thread ? "thread" : "main");
    fflush(stdout);
    if (in_thread)
        std::thread(fn).join();
    else
        fn();
    return 0;
}
