// Expert.h: what the hand-written ("expert") bench schedules in this folder share. Each
// PIPELINE.schedule.h defines `void schedule_PIPELINE(const expert::Funcs &f)`, written the way
// an expert writes a Halide schedule, against the Func names of bench/generators/PIPELINE.cpp.
// The BenchExpert plugin (bench/tools/expert_scheduler.cpp) applies them; scripts/bench.sh
// times them as the `expert` scheduler, checked against the reference like every other.
#pragma once

#include "Halide.h"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace expert {

/** The Funcs of one pipeline, by name: the outputs and everything they call. */
class Funcs {
public:
    explicit Funcs(const Halide::Pipeline &pipeline) {
        for (const Halide::Func &out : pipeline.outputs()) {
            for (const auto &entry : Halide::Internal::find_transitive_calls(out.function())) {
                by_name_.emplace(entry.first, Halide::Func(entry.second));
            }
        }
    }

    /** The Func called `name`; an error naming it if the pipeline has none. */
    Halide::Func operator()(const std::string &name) const {
        auto it = by_name_.find(name);
        if (it == by_name_.end()) {
            throw std::runtime_error("expert schedule: the pipeline has no Func named " + name);
        }
        return it->second;
    }

    /** The one Func whose name starts with `prefix` (inline reductions get a unique suffix). */
    Halide::Func unique_prefixed(const std::string &prefix) const {
        std::vector<Halide::Func> found;
        for (const auto &entry : by_name_) {
            if (entry.first.compare(0, prefix.size(), prefix) == 0) found.push_back(entry.second);
        }
        if (found.size() != 1) {
            throw std::runtime_error("expert schedule: " + std::to_string(found.size()) +
                                     " Funcs named " + prefix + "..., expected one");
        }
        return found[0];
    }

    bool has(const std::string &name) const { return by_name_.count(name) != 0; }

private:
    std::map<std::string, Halide::Func> by_name_;
};

/** The usual schedule of an image output (x, y, c) with `channels` channels: strips of `rows`
 * rows in parallel (split `y` into `yo`, `yi`), `lanes` lanes along `x`, channels unrolled
 * innermost. Returns the Func for further scheduling. */
inline Halide::Func strips_of_rows(Halide::Func output, int channels, int rows, int lanes) {
    using Halide::Var;
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi");
    return output.bound(c, 0, channels)
        .split(y, yo, yi, rows, Halide::TailStrategy::ShiftInwards)
        .reorder(c, x, yi, yo)
        .unroll(c)
        .vectorize(x, lanes)
        .parallel(yo);
}

} // namespace expert
