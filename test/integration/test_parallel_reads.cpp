// A buffer computed at the outer of two nested parallel loops is read by the inner loop's tasks
// on every core (featurizer/Featurizer.cpp, read_across_cores): not from this core's cache.
#include "DagHelpers.h"
#include "featurizer/Featurizer.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

using namespace Halide;

namespace {

using sextant::ScheduleFeature;

/** `out(x, y) = p(x, y) + p(x + 1, y)`, `p` the input doubled. Built once: Halide renames a
 * second Func of the same name. */
const sextant::PipelineDag &two_stage() {
    static const sextant::PipelineDag dag = [] {
        ImageParam in(Float(32), 2, "in_par");
        Var x("x"), y("y");
        Func p("p_par"), out("out_par");
        p(x, y) = in(x, y) * 2.0f;
        out(x, y) = p(x, y) + p(x + 1, y);
        out.set_estimate(x, 0, 1024).set_estimate(y, 0, 256);
        in.set_estimates({{0, 1025}, {0, 256}});
        return sextant::test::build({out}, sextant::test::two_cores());
    }();
    return dag;
}

/** `out`'s features: 64x16 tiles (rows of tiles outermost), the first `parallel` tile loops
 * parallel, `p` computed at `out`'s loop `level` (0: per row of tiles, 1: per tile). */
sextant::ScheduleRow out_features(int parallel, int level) {
    const sextant::PipelineDag &dag = two_stage();
    const std::string text =
        "sextant-schedule 1\nfunc out_par root\n  stage 0 loops x:split64 y:split16 vector 16 "
        "unroll 1 parallel " +
        std::to_string(parallel) + "\nfunc p_par at out_par " + std::to_string(level) +
        "\n  stage 0 loops x:inner y:inner vector 16 unroll 1 parallel 0\n";
    const sextant::Decisions d = sextant::parse_schedule_text(dag, text);
    const sextant::Nests nests = sextant::build_all_nests(dag, d);
    return sextant::Featurizer(dag).schedule_features(d, nests, dag.find_func("out_par"), 0);
}

double at(const sextant::ScheduleRow &r, ScheduleFeature f) {
    return r[size_t(f)];
}

} // namespace

TEST_CASE("a buffer computed outside a parallel loop of its reader's is read across cores",
          "[features]") {
    // Per row of tiles, both tile loops parallel: the row's tiles run on any core.
    const sextant::ScheduleRow nested = out_features(2, 0);
    CHECK(at(nested, ScheduleFeature::bytes_read_local) == 0);
    CHECK(at(nested, ScheduleFeature::bytes_read_root) > 0);
    // Per tile, or per row of tiles with only the rows parallel: one core computes and reads it.
    for (const sextant::ScheduleRow &own : {out_features(2, 1), out_features(1, 0)}) {
        CHECK(at(own, ScheduleFeature::bytes_read_local) > 0);
        CHECK(at(own, ScheduleFeature::bytes_read_root) == 0);
    }
}
