// Helpers the sampler's tool tests share: a scratch directory, a shell command's output, and
// sextant-sample on tiny random pipelines.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace sextant::test {

inline std::string temp_dir() {
    char dir[] = "/tmp/sextant-sampler-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    return dir;
}

/** Tiny pipelines: a few stages, small images, so a JIT compile takes about a second. */
inline const char *kTiny =
    " --max-stages 3 --max-work 2e5 --max-extent 128 --repeats 2 --beam 4 --passes 1";

/** Runs a shell command; returns its stdout, sets *status to its exit status. */
inline std::string run(const std::string &cmd, int *status = nullptr) {
    FILE *p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    int st = pclose(p);
    if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

/** sextant-sample, quiet. */
inline std::string sampler() {
    return std::string(SEXTANT_SAMPLE_EXE) + " --quiet";
}

} // namespace sextant::test
