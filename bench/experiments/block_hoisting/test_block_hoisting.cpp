// A block of vectors (the vector loop in one iteration, with the unrolled loops just outside
// it) shares the loads invariant in the loop around it only while its copies of them fit in
// registers (featurizer/StageView.h, sites_of): bench histogram_equalize's 6-row block of
// 32-lane int32 gathers, invariant in `c` outside it, ran no faster than the rows not
// unrolled.
#include "DagHelpers.h"
#include "featurizer/Featurizer.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

using namespace Halide;

namespace {

using sextant::ScheduleFeature;

/** `out(x, y, c) = img(x, y, c) * lut(idx(x, y))`: a gather that does not move with `c`. Built
 * once: Halide renames a second Func of the same name. */
const sextant::PipelineDag &table_per_pixel() {
    static const sextant::PipelineDag dag = [] {
        ImageParam img(Int(32), 3, "img_blk"), idx(UInt(8), 2, "idx_blk");
        Var x("x"), y("y"), c("c"), i("i");
        Func lut("lut_blk"), out("out_blk");
        lut(i) = i * i;
        out(x, y, c) = img(x, y, c) * lut(cast<int32_t>(idx(x, y)));
        out.set_estimate(x, 0, 512).set_estimate(y, 0, 96).set_estimate(c, 0, 3);
        img.set_estimates({{0, 512}, {0, 96}, {0, 3}});
        idx.set_estimates({{0, 512}, {0, 96}});
        return sextant::test::build({out}, sextant::test::two_cores());
    }();
    return dag;
}

/** Gathers per point of `out` with its loops `loops` (AVX2: 8 int32 lanes a register). */
double gathers_per_point(const std::string &loops) {
    const sextant::PipelineDag &dag = table_per_pixel();
    const std::string text = "sextant-schedule 1\nfunc out_blk root\n  stage 0 loops " + loops +
                             "\nfunc lut_blk root\n  stage 0 loops i:inner vector 8 unroll 1 "
                             "parallel 0\n";
    const sextant::Decisions d = sextant::parse_schedule_text(dag, text);
    const sextant::Nests nests = sextant::build_all_nests(dag, d);
    const sextant::ScheduleRow r =
        sextant::Featurizer(dag).schedule_features(d, nests, dag.find_func("out_blk"), 0);
    return r[size_t(ScheduleFeature::gather_lane_executions)] / (512.0 * 96 * 3);
}

} // namespace

TEST_CASE("a block shares a gather across the loop around it while its copies fit in registers",
          "[features]") {
    // No loop unrolled: each lane gathers once per channel (a lane of a 1 KiB table, in L1).
    const double each = gathers_per_point("x:split8 y:split2 c:inner vector 8 unroll 1 parallel 1");
    REQUIRE(each > 0);
    // Two rows of one register each: kept across `c`, gathered once for the three channels.
    CHECK(gathers_per_point("x:split8 y:split2 c:inner vector 8 unroll 1 parallel 1 "
                            "unroll_outer") == Approx(each / 3));
    // Four rows of two 16-lane vectors, 16 registers: gathered again for every channel.
    CHECK(gathers_per_point("x:split32 y:split4 c:inner vector 16 unroll 2 parallel 1 "
                            "unroll_outer") == Approx(each));
}
