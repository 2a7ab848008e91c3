// dram_bytes of a Func computed inside its consumer's loops, when a loop outside it reads the
// same part of a root input again (featurizer/Featurizer.cpp, memory_features).
#include "featurizer/Featurizer.h"
#include "halide/DagBuilder.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

using namespace Halide;

namespace {

/** Decisions of `text` for the DAG, and `func`'s schedule features. */
sextant::ScheduleRow features_of(const sextant::PipelineDag &dag, const std::string &text,
                                 const std::string &func) {
    const sextant::Decisions d = sextant::parse_schedule_text(dag, text);
    const sextant::Nests nests = sextant::build_all_nests(dag, d);
    sextant::Featurizer fz(dag);
    return fz.schedule_features(d, nests, dag.find_func(func), 0);
}

double dram(const sextant::ScheduleRow &r) {
    return r[size_t(sextant::ScheduleFeature::dram_bytes)];
}

} // namespace

TEST_CASE("a loop that reads the same part of a root input again streams it again when it is "
          "more than the cache",
          "[features]") {
    // Bench local_laplacian's `g_pyr_1_dx` (8 intensity levels k of a blur of `gray`, k
    // outermost in its consumer) read the 30.6 MB `gray` once per k: 19.7 ms a run against
    // 14.3 with k inside 64x64 tiles, and both were charged `gray` once.
    ImageParam in(Float(32), 2, "in_streamed");
    Var x("x"), y("y"), k("k");
    Func dx("dx_streamed"), out("out_streamed");
    dx(x, y, k) = in(x, y) * cast<float>(k) + in(x + 1, y);
    out(x, y, k) = dx(x, y, k) + dx(x, y + 1, k);
    out.set_estimate(x, 0, 4096).set_estimate(y, 0, 2048).set_estimate(k, 0, 8);
    in.set_estimates({{0, 4097}, {0, 2049}});
    sextant::MachineInfo machine;
    machine.parallelism = 2;
    machine.last_level_cache_bytes = 16 << 20;
    const sextant::PipelineDag dag =
        sextant::build_pipeline_dag({out.function()}, Target("x86-64-linux-avx2"), machine);
    REQUIRE(dag.machine.last_level_cache_bytes < 4097.0 * 2049 * 4); // the input is larger
    const double input = 4097.0 * 2049 * 4;
    // `out` in 8-row strips with k in the outer group (k outermost) or the inner one; dx
    // computed per strip of one k, or per strip of every k.
    auto dx_dram = [&](const std::string &k_mode, int level) {
        const std::string text = "sextant-schedule 1\n"
                                 "func out_streamed root\n"
                                 "  stage 0 loops x:inner y:split8 k:" +
                                 k_mode +
                                 " vector 8 unroll 1 parallel 1\n"
                                 "func dx_streamed at out_streamed " +
                                 std::to_string(level) +
                                 "\n"
                                 "  stage 0 loops x:inner y:inner k:inner vector 8 unroll 1 "
                                 "parallel 0\n";
        return dram(features_of(dag, text, "dx_streamed"));
    };
    CHECK(dx_dram("outer", 1) == Approx(8 * input)); // each k reads all of the input again
    CHECK(dx_dram("inner", 0) == Approx(input));     // the input comes once
}
