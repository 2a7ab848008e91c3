// The search's bounds: memory (BeamSearchOptions::memory_bytes) and time (time_limit_s) on a
// pipeline far larger than the tiny ones: 200 five-dimensional Funcs, each a stencil of the one
// before and a pointwise read of the one before that.
#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/BeamSearch.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <sys/resource.h>

using namespace sextant;

namespace {

/** n Funcs F0..F{n-1} over (x, y, z, i, j): F0 = in, Fk = Fk-1(stencil +-1 in x or y) + Fk-2;
 * F{n-1} is the output over 64 x 64 x 8 x 4 x 3. */
PipelineDag wide_5d_dag(int n) {
    const int D = 5;
    const int64_t ext[D] = {64, 64, 8, 4, 3};
    const char *names[D] = {"x", "y", "z", "i", "j"};
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    auto bounds = [&](int margin) {
        Box64 b;
        for (int d = 0; d < D; d++)
            b.push_back(d < 2 ? Interval64{-margin, ext[d] - 1 + margin}
                              : Interval64{0, ext[d] - 1});
        return b;
    };
    dag.inputs.push_back(test::input(bounds(n)));
    std::vector<JacobianEntry> identity;
    for (int p = 0; p < D; p++)
        for (int l = 0; l < D; l++)
            identity.push_back({p == l ? 1 : 0, 1, true});
    for (int k = 0; k < n; k++) {
        FuncNode f = test::func(k, "F" + std::to_string(k), bounds(n - 1 - k));
        f.dims.clear();
        for (int d = 0; d < D; d++)
            f.dims.push_back(names[d]);
        f.can_inline = k < n - 1;
        f.is_output = k == n - 1;
        Stage s;
        s.func = k;
        s.name = f.name;
        for (int d = 0; d < D; d++)
            s.loops.push_back(test::pure_loop(names[d], d, f.bounds[d].min, f.bounds[d].max));
        s.ops.at(OpKind::Add, TypeClass::F32) = 3;
        std::vector<int64_t> zero(D, 0), lo(D, 0), hi(D, 0);
        lo[k % 2] = -1;
        hi[k % 2] = 1;
        if (k == 0) {
            s.loads = {test::simple_load(ProducerKind::Input, 0, 1, D, identity)};
            dag.edges.push_back(test::offset_edge(0, 0, ProducerKind::Input, 0, zero, zero, 1));
        } else {
            s.loads = {test::simple_load(ProducerKind::Func, k - 1, 3, D, identity)};
            dag.edges.push_back(test::offset_edge(k, 0, ProducerKind::Func, k - 1, lo, hi, 3));
            if (k >= 2) {
                s.loads.push_back(test::simple_load(ProducerKind::Func, k - 2, 1, D, identity));
                dag.edges.push_back(
                    test::offset_edge(k, 0, ProducerKind::Func, k - 2, zero, zero, 1));
            }
        }
        f.stages.push_back(s);
        dag.funcs.push_back(f);
    }
    dag.outputs = {n - 1};
    dag.link();
    return dag;
}

double peak_rss_bytes() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) * 1024.0;
}

double rss_bytes() {
    long pages = 0, resident = 0;
    FILE *f = std::fopen("/proc/self/statm", "r");
    if (f) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return double(resident) * 4096.0;
}

/** The analytical search over wide_5d_dag(200). */
struct WideSearch {
    PipelineDag dag = wide_5d_dag(200);
    SearchSpace space{dag};
    AnalyticalModel model{dag.machine.parallelism, double(dag.machine.last_level_cache_bytes)};
    ModelEvaluator eval{dag, model};
};

} // namespace

TEST_CASE("the search holds no more than its memory bound on 200 five-dimensional Funcs",
          "[search][bounds]") {
    WideSearch w;
    SearchSpace &space = w.space;
    ModelEvaluator &eval = w.eval;
    BeamSearchOptions opt;
    opt.beam_size = 8;
    opt.num_passes = 1;
    opt.time_limit_s = 0;
    opt.memory_bytes = 12.0 * 1024 * 1024;
    const double before = rss_bytes();
    SearchStats stats;
    StatePtr best = beam_search(space, eval, opt, &stats);
    const double grew = peak_rss_bytes() - before;
    REQUIRE(best);
    CHECK(space.is_complete(*best));
    CHECK(stats.best_cost_per_pass.size() == 1);
    // The bound bit: states of 200 Funcs do not fit beam 8 plus a full batch in 12 MiB.
    CHECK(stats.narrowed_steps > 0);
    CHECK(stats.peak_held_bytes <= opt.memory_bytes);
    // What the process grew by: the bound, plus the DAG, the featurizer's tables and the
    // allocator's slack; without batching this search held ~2048 states of ~70 KiB each.
    INFO("peak RSS grew by " << grew / 1048576 << " MiB; the search held at most "
                             << stats.peak_held_bytes / 1048576 << " MiB");
    CHECK(grew <= 2 * opt.memory_bytes);
}

TEST_CASE("the time limit cuts the search short and still yields a complete schedule",
          "[search][bounds]") {
    WideSearch w;
    SearchSpace &space = w.space;
    ModelEvaluator &eval = w.eval;
    BeamSearchOptions opt;
    opt.beam_size = 32;
    opt.num_passes = 5;
    opt.time_limit_s = 0.5;
    auto t0 = std::chrono::steady_clock::now();
    SearchStats stats;
    StatePtr best = beam_search(space, eval, opt, &stats);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE(best);
    CHECK(space.is_complete(*best));
    CHECK(stats.time_limited);
    REQUIRE(!stats.notes.empty());
    CHECK(stats.notes.front().find("time limit") != std::string::npos);
    // One step after the limit, then the rest greedily: far less than a full search.
    CHECK(took < 0.5 + 20);
    // Every Func of the schedule is decided and legal to replay.
    for (int f : space.order())
        CHECK(best->decisions[f].placement != Placement::Undecided);
}

TEST_CASE("SEXTANT_ASSERT throws an InternalError naming the condition, in every build",
          "[search][bounds]") {
    auto fails = [] { SEXTANT_ASSERT(1 + 1 == 3, "arithmetic is broken"); };
    CHECK_THROWS_AS(fails(), InternalError);
    try {
        fails();
    } catch (const InternalError &e) {
        std::string what = e.what();
        CHECK(what.find("1 + 1 == 3") != std::string::npos);
        CHECK(what.find("arithmetic is broken") != std::string::npos);
        CHECK(what.find("test_search_bounds.cpp") != std::string::npos);
    }
}
