// The allocator estimate (featurizer: estimate_allocator) with hand-computed values: when
// glibc's arena trim makes Halide's per-iteration buffers fault, and the evaluator's price.
#include "TinyDags.h"
#include "costmodel/CostTerms.h"
#include "featurizer/Featurizer.h"

#include <catch2/catch.hpp>

using namespace sextant;

namespace {

using test::sched;

/** in -> P0(x, y) = in(x, y) * 2, P1(x, y) = in(x, y) + 1 -> C(x, y) = P0(x, y-1..y+1) +
 * P1(x, y-1..y+1); C over [0, W) x [0, H), the producers over [0, W) x [-1, H]. */
PipelineDag two_producers(int64_t W, int64_t H) {
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    dag.inputs.push_back(test::input({{0, W - 1}, {-1, H}}));
    for (int id = 0; id < 2; id++) {
        FuncNode p = test::func(id, id == 0 ? "P0" : "P1", {{0, W - 1}, {-1, H}});
        p.can_inline = true;
        Stage ps;
        ps.func = id;
        ps.name = p.name;
        ps.loops = {test::pure_loop("x", 0, 0, W - 1), test::pure_loop("y", 1, -1, H)};
        ps.ops.at(OpKind::Mul, TypeClass::F32) = 1;
        ps.loads = {test::simple_load(ProducerKind::Input, 0, 1, 2,
                                      {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
        p.stages.push_back(ps);
        dag.funcs.push_back(p);
    }
    FuncNode c = test::func(2, "C", {{0, W - 1}, {0, H - 1}});
    c.is_output = true;
    Stage cs;
    cs.func = 2;
    cs.name = "C";
    cs.loops = {test::pure_loop("x", 0, 0, W - 1), test::pure_loop("y", 1, 0, H - 1)};
    cs.ops.at(OpKind::Add, TypeClass::F32) = 5;
    for (int id = 0; id < 2; id++)
        cs.loads.push_back(test::simple_load(
            ProducerKind::Func, id, 3, 2, {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}}));
    c.stages.push_back(cs);
    dag.funcs.push_back(c);
    dag.outputs = {2};
    for (int id = 0; id < 2; id++) {
        dag.edges.push_back(test::offset_edge(id, 0, ProducerKind::Input, 0, {0, 0}, {0, 0}, 1));
        dag.edges.push_back(test::offset_edge(2, 0, ProducerKind::Func, id, {0, -1}, {0, 1}, 3));
    }
    dag.link();
    return dag;
}

/** C in parallel strips of 8 rows; each producer Root, or At the strip loop (10 rows). */
Decisions strips(Placement p0, Placement p1) {
    Decisions d(3);
    d[2].placement = Placement::Root;
    d[2].stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 1)};
    Placement p[2] = {p0, p1};
    for (int id = 0; id < 2; id++) {
        d[id].placement = p[id];
        if (p[id] == Placement::At) {
            d[id].at_func = 2;
            d[id].at_level = 0;
        }
        d[id].stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    }
    return d;
}

AllocatorEstimate estimate(const PipelineDag &dag, const Decisions &d) {
    return estimate_allocator(dag, d, build_all_nests(dag, d));
}

} // namespace

TEST_CASE("two strip buffers over 128 KiB together fault what the trim releases",
          "[allocator]") {
    // 2048 x 10 rows x 4 bytes = 80 KiB each: 160 KiB per strip, nothing mmap'd ever, so the
    // trim threshold stays at 128 KiB and each strip re-faults the 32 KiB above it.
    PipelineDag dag = two_producers(2048, 256);
    AllocatorEstimate e = estimate(dag, strips(Placement::At, Placement::At));
    CHECK(e.trim_threshold_bytes == 128 * 1024);
    CHECK(e.heap_mallocs == 2 * 32); // 32 strips
    CHECK(e.root_heap_bytes == 0);
    // Per producer: 32 strips x 20 pages x (160 - 128) / 160.
    CHECK(e.page_faults == Approx(2 * 32 * 20 * 0.2));
    CHECK(e.page_faults_nests == e.page_faults);
    CHECK(allocator_seconds(e) == Approx(e.page_faults * kThreadArenaFaultSeconds));
    // The featurizer's per-stage view agrees when nothing else is in the pipeline.
    Nests n = build_all_nests(dag, strips(Placement::At, Placement::At));
    Featurizer fz(dag);
    ScheduleRow r = fz.schedule_features(strips(Placement::At, Placement::At), n, 0, 0);
    CHECK(r[int(ScheduleFeature::page_faults)] == Approx(32 * 20 * 0.2));
}

TEST_CASE("strip buffers under the threshold, or a large root buffer, do not fault",
          "[allocator]") {
    // 40 KiB each: 80 KiB per strip stays under the trim threshold.
    PipelineDag narrow = two_producers(1024, 256);
    AllocatorEstimate e = estimate(narrow, strips(Placement::At, Placement::At));
    CHECK(e.heap_mallocs == 64);
    CHECK(e.page_faults == 0);
    // P1 at root (2048 x 258 x 4 = 2 MiB, mmap'd at its first allocation) raises the trim
    // threshold to 4 MiB after the first run: P0's 80 KiB strips no longer trim.
    PipelineDag dag = two_producers(2048, 256);
    e = estimate(dag, strips(Placement::At, Placement::Root));
    CHECK(e.trim_threshold_bytes == 2.0 * 2048 * 258 * 4);
    CHECK(e.root_heap_bytes == 2048.0 * 258 * 4);
    CHECK(e.page_faults == 0);
    CHECK(e.heap_mallocs == 32 + 1);
}

TEST_CASE("root buffers over the trim threshold together, or over 32 MiB, fault every run",
          "[allocator]") {
    // 4096 x 4096 x 4 = 64 MiB each: mmap'd and unmapped every run.
    PipelineDag big = two_producers(4096, 4094);
    AllocatorEstimate e = estimate(big, strips(Placement::Root, Placement::Root));
    CHECK(e.root_heap_bytes == 0);
    CHECK(e.page_faults == 2 * 16384);
    CHECK(e.page_faults_nests == 0);
    CHECK(allocator_seconds(e) == Approx(2 * 16384 * kMainArenaFaultSeconds));
}
