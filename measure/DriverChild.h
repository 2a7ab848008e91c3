// The in-process half of sextant-time (measure/pipeline_driver.cpp): load an ahead-of-time
// compiled pipeline (LIB.so:FUNC, or the fixed 'probe' workload) into this process, size and fill
// its buffers from its metadata, and run one of the child modes. The parent modes start this
// same program in fresh processes for these.
#pragma once

#include "measure/TimingLoop.h"

#include <map>
#include <string>

namespace sextant::driver {

/** Exit statuses of the child modes, which the parent modes map to failure kinds. */
constexpr int kExitWrongOutput = 1;
constexpr int kExitFailed = 2;

/** Prints a failure line (the parent reads it) and exits with kExitFailed. */
[[noreturn]] void fail(const std::string &msg, const char *kind = "other");

/** Values an input is filled with (--fill NAME=LO:HI). */
struct Range {
    double lo = 0, hi = 0;
};

/** What a child mode needs. */
struct ChildRun {
    std::string mode;    ///< "--save-ref", "--check-one" or "--time-one"
    std::string spec;    ///< LIB.so:FUNC or "probe"
    std::string runtime; ///< Halide runtime to load first (empty: the pipeline's or ours)
    std::map<std::string, Range> ranges;
    std::string file; ///< the reference outputs (--save-ref, --check-one)
    double rtol = 1e-4;
    StopRule rule;
    /** Inputs exactly as their estimates say (a read outside them is an error); otherwise each
     * input grows to the region a bounds query says the schedule reads, as RunGen does. */
    bool exact_inputs = false;
};

/** Runs one child mode in this process; returns the exit status. */
int run_child_mode(const ChildRun &c);

} // namespace sextant::driver
