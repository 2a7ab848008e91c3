// dram_bytes of a Func computed inside its consumer's loops, when a loop outside it reads the
// same part of a root input again, and total_bytes_read of a stage whose own loop reads the
// same footprint again after touching more than a core's cache (featurizer/Featurizer.cpp,
// memory_features; featurizer/RootStreams.cpp), and a root input read just before by a Func
// computed at the stage (Featurizer::sibling_reads).
#include "DagHelpers.h"
#include "featurizer/Featurizer.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

using namespace Halide;

namespace {

/** Decisions of `text` for the DAG, and the schedule features of `func`'s stage `stage`. */
sextant::ScheduleRow features_of(const sextant::PipelineDag &dag, const std::string &text,
                                 const std::string &func, int stage = 0) {
    const sextant::Decisions d = sextant::parse_schedule_text(dag, text);
    const sextant::Nests nests = sextant::build_all_nests(dag, d);
    // (Halide may have renamed a Func `name$N`: pass Func::name().)
    const int id = dag.find_func(func);
    INFO("no Func named " << func);
    REQUIRE(id >= 0);
    return sextant::Featurizer(dag).schedule_features(d, nests, id, stage);
}

double dram(const sextant::ScheduleRow &r) {
    return r[size_t(sextant::ScheduleFeature::dram_bytes)];
}

double bytes_read(const sextant::ScheduleRow &r) {
    return r[size_t(sextant::ScheduleFeature::total_bytes_read)];
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
    const sextant::PipelineDag dag = sextant::test::build({out}, sextant::test::two_cores());
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

TEST_CASE("a stage's own loop that reads the same footprint again after touching more than a "
          "core's cache reads it again",
          "[features]") {
    // Bench max_filter's `table(x, y, c, k)` reads every window level at (x, y, c) whatever
    // `k` is; with `k` outermost over a 128-row strip it ran 15.8 ms a run against 7.5 with 8
    // rows at a time and `k` inside, and both were charged the windows once. Here `win` and
    // `table` are computed per 256-row strip of `out`, as max_filter's windows and table are.
    ImageParam in(Float(32), 2, "in_reread");
    Var x("x"), y("y"), k("k");
    Func win("win_reread"), table("table_reread"), out("out_reread");
    win(x, y) = in(x, y) * 2.0f;
    table(x, y, k) = win(x, y) * cast<float>(k) + win(x + 1, y);
    out(x, y, k) = table(x, y, k);
    out.set_estimate(x, 0, 1024).set_estimate(y, 0, 512).set_estimate(k, 0, 8);
    in.set_estimates({{0, 1025}, {0, 512}});
    const sextant::PipelineDag dag = sextant::test::build({out}, sextant::test::two_cores());
    auto read = [&](const std::string &table_loops, const std::string &win_placement) {
        return bytes_read(features_of(dag,
                                      "sextant-schedule 1\n"
                                      "func out_reread root\n"
                                      "  stage 0 loops x:inner y:split256 k:inner vector 8 "
                                      "unroll 1 parallel 0\n"
                                      "func table_reread at out_reread 0\n"
                                      "  stage 0 loops " +
                                          table_loops +
                                          " vector 8 unroll 1 parallel 0\n"
                                          "func win_reread " +
                                          win_placement +
                                          "\n"
                                          "  stage 0 loops x:inner y:inner vector 8 unroll 1 "
                                          "parallel 0\n",
                                      "table_reread"));
    };
    const double once = 1025.0 * 256 * 4 * 2; // a strip of `win` (1 MiB), two strips
    // k outermost: one k sweeps 1 MiB of `win` and writes 1 MiB of `table`, so 8 sweeps.
    CHECK(read("x:inner y:inner k:inner", "at out_reread 0") == Approx(8 * once));
    // k inside 8-row blocks: 32 KiB of `win` a block, read once.
    CHECK(read("x:inner y:split8 k:inner", "at out_reread 0") == Approx(once));
    // A Root producer's sweeps are not charged (each comes from further out than the core's
    // cache anyway; charging them ranked the corpus worse).
    CHECK(read("x:inner y:inner k:inner", "root") == Approx(once));
}

TEST_CASE("an update's reduction loop does not count as points it writes", "[features]") {
    // prod(x, y) += a(r, y) * panel(x, r), `panel` computed beside `prod` in `out`'s one
    // strip: one y_o iteration (3 rows of prod) reads the 128 x 512 panel, a's 3 rows and
    // writes 3 rows: 264 KiB, read again by the next y_o from the core's cache. Counting the
    // box with the 512 r as written points made it 1 MiB more.
    auto prod_reads = [](int width, const std::string &y_loop) {
        // Each pipeline gets its own names (Halide renames a second Func of the same name).
        const std::string tag = std::to_string(width) + "_" + y_loop;
        ImageParam a(Float(32), 2, "a_" + tag), b(Float(32), 2, "b_" + tag);
        Var x("x"), y("y");
        RDom r(0, 512, "r");
        Func panel("panel_" + tag), prod("prod_" + tag), out("out_" + tag);
        panel(x, y) = b(x, y) + 1.0f;
        prod(x, y) = 0.0f;
        prod(x, y) += a(r, y) * panel(x, r);
        out(x, y) = prod(x, y);
        out.set_estimate(x, 0, width).set_estimate(y, 0, 512);
        a.set_estimates({{0, 512}, {0, 512}});
        b.set_estimates({{0, width}, {0, 512}});
        const sextant::PipelineDag dag = sextant::test::build({out}, sextant::test::two_cores());
        return bytes_read(features_of(dag,
                                      "sextant-schedule 1\n"
                                      "func out_" +
                                          tag +
                                          " root\n"
                                          "  stage 0 loops x:inner y:split512 vector 8 unroll 1 "
                                          "parallel 0\n"
                                          "func prod_" +
                                          tag + " at out_" + tag +
                                          " 0\n"
                                          "  stage 0 loops x:inner y:inner vector 8 unroll 1 "
                                          "parallel 0\n"
                                          "  stage 1 loops r$x:outer x:inner y:" +
                                          y_loop +
                                          " vector 8 unroll 1 parallel 0\n"
                                          "func panel_" +
                                          tag + " at out_" + tag +
                                          " 0\n"
                                          "  stage 0 loops x:inner y:inner vector 8 unroll 1 "
                                          "parallel 0\n",
                                      prod.name(), 1));
    };
    CHECK(prod_reads(128, "split3") == Approx(prod_reads(128, "inner")));
    // 512 wide, the panel is 1 MiB: each of the 171 y_o iterations reads it again.
    const double bytes = 512.0 * 512 * 4;
    CHECK(prod_reads(512, "split3") == Approx(prod_reads(512, "inner") + 170 * bytes));
}

TEST_CASE("a root input that a Func computed at the stage's loop has just read over the same "
          "part comes from cache",
          "[features]") {
    // Bench unsharp_mask: `luma` per 128-row strip of `output` reads the input's strip, then
    // `output` reads the same strip. Charged from memory a second time, the input was copied
    // per strip instead (`repeat_edge` computed there: 9.8 against 7.5 ms a run).
    // `shift`: how many rows below its own the sibling reads (0: the same part).
    auto out_dram = [](int shift, const std::string &sibling_placement) {
        const std::string tag = std::to_string(shift) + "_" + sibling_placement.substr(0, 2);
        ImageParam in(Float(32), 2, "in_" + tag);
        Var x("x"), y("y");
        Func sib("sib_" + tag), out("out_" + tag);
        sib(x, y) = in(x, y + shift) * 0.5f + in(x + 1, y + shift);
        out(x, y) = in(x, y) + sib(x, y);
        out.set_estimate(x, 0, 4096).set_estimate(y, 0, 2048);
        in.set_estimates({{0, 4097}, {0, 2048 + shift}});
        const sextant::PipelineDag dag = sextant::test::build({out}, sextant::test::two_cores());
        return dram(features_of(dag,
                                "sextant-schedule 1\n"
                                "func out_" +
                                    tag +
                                    " root\n"
                                    "  stage 0 loops x:inner y:split64 vector 8 unroll 1 "
                                    "parallel 1\n"
                                    "func sib_" +
                                    tag + " " + sibling_placement +
                                    "\n"
                                    "  stage 0 loops x:inner y:inner vector 8 unroll 1 "
                                    "parallel 0\n",
                                out.name()));
    };
    const double input = 4096.0 * 2048 * 4; // more than the cache
    // The sibling per strip reads what `out` reads next: from cache.
    CHECK(out_dram(0, "at out_0_at 0") == Approx(0));
    // At root it read the whole input long before (and `out` reads its buffer from memory
    // too); a sibling reading another part of the input: from memory.
    CHECK(out_dram(0, "root") == Approx(input + 4096.0 * 2048 * 4));
    CHECK(out_dram(512, "at out_512_at 0") == Approx(input));
}
