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
        cs.loads.push_back(
            test::simple_load(ProducerKind::Func, id, 3, 2,
                              {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}}));
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
    d.mut(2).placement = Placement::Root;
    d.mut(2).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 1)};
    Placement p[2] = {p0, p1};
    for (int id = 0; id < 2; id++) {
        d.mut(id).placement = p[id];
        if (p[id] == Placement::At) {
            d.mut(id).at_func = 2;
            d.mut(id).at_level = 0;
        }
        d.mut(id).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    }
    return d;
}

AllocatorEstimate estimate(const PipelineDag &dag, const Decisions &d) {
    return estimate_allocator(dag, d, build_all_nests(dag, d));
}

} // namespace

TEST_CASE("two strip buffers over 128 KiB together fault what the trim releases", "[allocator]") {
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

TEST_CASE("the outlook counts a Func not yet placed as a root buffer in the thresholds",
          "[allocator]") {
    // P0 per 8-row strip (80 KiB, nothing mmap'd) with P1 not yet placed: the threshold stays
    // at 128 KiB. P1 may yet be a 2 MiB root buffer, which would raise it to 4 MiB (as the
    // case above with P1 at root): the outlook's threshold. A complete schedule is priced
    // alike either way.
    PipelineDag dag = two_producers(2048, 256);
    Decisions d = strips(Placement::At, Placement::At);
    d.mut(1) = FuncSched{};
    const Nests n = build_all_nests(dag, d);
    CHECK(estimate_allocator(dag, d, n).trim_threshold_bytes == 128 * 1024);
    CHECK(estimate_allocator(dag, d, n, nullptr, true).trim_threshold_bytes ==
          2.0 * 2048 * 258 * 4);
    const Decisions both = strips(Placement::At, Placement::At);
    const Nests bn = build_all_nests(dag, both);
    const AllocatorEstimate e = estimate_allocator(dag, both, bn);
    CHECK(e.page_faults > 0);
    CHECK(estimate_allocator(dag, both, bn, nullptr, true).page_faults == e.page_faults);
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

TEST_CASE("a strip group at the trim threshold faults once the top pad is counted", "[allocator]") {
    // 4096 x 10 rows x 4 bytes = 160 KiB each: mmap'd at first, which raises the threshold to
    // 320 KiB, exactly the group. Freed, the thread's top holds the group plus the 128 KiB top
    // pad, over the threshold: each strip re-faults what lies above the pad (bench iir_blur:
    // two 15 MiB buffers per channel under a 30 MiB threshold faulted 7,658 pages per run).
    PipelineDag dag = two_producers(4096, 256);
    AllocatorEstimate e = estimate(dag, strips(Placement::At, Placement::At));
    CHECK(e.trim_threshold_bytes == 320 * 1024);
    // Per producer: 32 strips x 40 pages x (320 - 128) / 320.
    CHECK(e.page_faults == Approx(2 * 32 * 40 * 0.6));
    // A group under the pad releases nothing: no faults, never a negative count.
    PipelineDag small = two_producers(256, 256); // 10 KiB strips
    e = estimate(small, strips(Placement::At, Placement::At));
    CHECK(e.page_faults == 0);
}

TEST_CASE("a sliding window's buffer is folded to a power of two along the slide", "[allocator]") {
    // C in 8-row strips; P0 computed per row of a strip (3 rows: y-1..y+1) and stored per
    // strip (10 rows): Halide folds the storage to 4 rows.
    PipelineDag dag = two_producers(1024, 256);
    Decisions d = strips(Placement::At, Placement::Root);
    d.mut(2).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 1)}; // y_o, y_i, x
    d.mut(0).at_level = 1;
    d.mut(0).store_level = 0;
    Nests n = build_all_nests(dag, d);
    CHECK(n[0]->sliding);
    CHECK(box_volume(n[0]->store_region) == 1024 * 10);
    CHECK(n[0]->alloc_points == 1024 * 4);
    // Points computed still follow the unfolded storage: once per storage realization.
    CHECK(n[0]->store_realizations == 32);
    // Without sliding the allocation is the region.
    d.mut(0).store_level = -1;
    n = build_all_nests(dag, d);
    CHECK(n[0]->alloc_points == 1024 * 3);
}

TEST_CASE("a window read by a sliding consumer and by the Func it slides in is not folded",
          "[allocator]") {
    // two_producers with P1 reading P0 (rows y-1..y+1) instead of the input: P0 is read by P1
    // and by C. Both producers computed per row of C's 8-row strips and stored per strip.
    PipelineDag dag = two_producers(1024, 256);
    dag.funcs[0].bounds = {{0, 1023}, {-2, 257}};
    dag.funcs[1].stages[0].loads[0].kind = ProducerKind::Func; // producer 0: P0
    for (Edge &e : dag.edges)
        if (e.consumer_func == 1)
            e = test::offset_edge(1, 0, ProducerKind::Func, 0, {0, -1}, {0, 1}, 3);
    dag.link();
    Decisions d = strips(Placement::At, Placement::At);
    d.mut(2).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 1)}; // y_o, y_i, x
    for (int id = 0; id < 2; id++) {
        d.mut(id).at_level = 1;
        d.mut(id).store_level = 0;
    }
    Nests n = build_all_nests(dag, d);
    REQUIRE(n[0]->sliding);
    REQUIRE(n[1]->sliding);
    // P1 (read by C alone) is folded; P0, read by the sliding P1 and by C itself, keeps the
    // strip's 12 rows (bench harris: `gx`, read by the sliding `ixy` and by the output).
    CHECK(n[1]->alloc_points == 1024 * 4);
    CHECK(n[0]->alloc_points == double(box_volume(n[0]->store_region)));
    CHECK(box_volume(n[0]->store_region) == 1024 * 12);
    // With P1 inlined, C is P0's one consumer: folded.
    d.mut(1).placement = Placement::Inline;
    d.mut(1).stages.clear();
    n = build_all_nests(dag, d);
    REQUIRE(n[0]->sliding);
    CHECK(n[0]->alloc_points < double(box_volume(n[0]->store_region)));
}

TEST_CASE("a stack buffer over 16 KiB is Halide's pseudostack: malloc'd once per task",
          "[allocator]") {
    // C in 8-row parallel strips of two 4096-column tiles (y.outer, x.outer, y.inner, x.inner);
    // each producer per tile (4096 x 10 rows x 4 bytes = 160 KiB, a constant size), marked
    // `stack`. Halide 14 mallocs such a buffer once per task (bench harris, malloc log) and
    // keeps it across the task's tiles: 32 mallocs per producer per run, not 64.
    PipelineDag dag = two_producers(8192, 256);
    Decisions d = strips(Placement::At, Placement::At);
    d.mut(2).stages = {sched({{LoopMode::Split, 4096}, {LoopMode::Split, 8}}, 8, 1)};
    for (int p = 0; p < 2; p++) {
        d.mut(p).at_level = 1;
        d.mut(p).stack = true;
    }
    Nests n = build_all_nests(dag, d);
    REQUIRE(n[0]->constant_size);
    REQUIRE(n[0]->store_realizations == 64);
    AllocatorEstimate e = estimate_allocator(dag, d, n);
    CHECK(e.heap_mallocs == 2 * 32);
    // The two are one group in the thread's arena, as heap buffers would be: 320 KiB under a
    // 320 KiB threshold, each task re-faults 40 pages x (320 - 128) / 320 per buffer.
    CHECK(e.trim_threshold_bytes == 320 * 1024);
    CHECK(e.page_faults == Approx(2 * 32 * 40 * 0.6));
    // Within 16 KiB a `stack` buffer is in the frame: no malloc at all.
    PipelineDag small = two_producers(512, 256);
    Decisions ds = d;
    ds.mut(2).stages = {sched({{LoopMode::Split, 256}, {LoopMode::Split, 8}}, 8, 1)};
    CHECK(estimate_allocator(small, ds, build_all_nests(small, ds)).heap_mallocs == 0);
}

namespace {

/** in -> A -> B -> D -> C, each pointwise (A = in * 2, B = A + 1, D = B * 3, C = D); C over
 * [0, W) x [0, H) in parallel strips of 8 rows, A, B and D computed per strip. */
PipelineDag chain3(int64_t W, int64_t H) {
    PipelineDag dag;
    dag.machine = test::avx2_machine(2);
    dag.inputs.push_back(test::input({{0, W - 1}, {0, H - 1}}));
    const char *names[] = {"A", "B", "D", "C"};
    for (int id = 0; id < 4; id++) {
        FuncNode f = test::func(id, names[id], {{0, W - 1}, {0, H - 1}});
        f.can_inline = id < 3;
        f.is_output = id == 3;
        Stage s;
        s.func = id;
        s.name = f.name;
        s.loops = {test::pure_loop("x", 0, 0, W - 1), test::pure_loop("y", 1, 0, H - 1)};
        s.ops.at(OpKind::Mul, TypeClass::F32) = 1;
        const ProducerKind kind = id == 0 ? ProducerKind::Input : ProducerKind::Func;
        s.loads = {test::simple_load(kind, id == 0 ? 0 : id - 1, 1, 2,
                                     {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}})};
        f.stages.push_back(s);
        dag.funcs.push_back(f);
        dag.edges.push_back(
            test::offset_edge(id, 0, kind, id == 0 ? 0 : id - 1, {0, 0}, {0, 0}, 1));
    }
    dag.outputs = {3};
    dag.link();
    return dag;
}

Decisions chain3_strips() {
    Decisions d(4);
    d.mut(3).placement = Placement::Root;
    d.mut(3).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 8}}, 8, 1)};
    for (int id = 0; id < 3; id++) {
        d.mut(id).placement = Placement::At;
        d.mut(id).at_func = 3;
        d.mut(id).at_level = 0;
        d.mut(id).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}, 8, 0)};
    }
    return d;
}

/** chain3(512, 256) with A, B and D at root, A's values of `a_types` (8 bytes a point). */
AllocatorEstimate chain3_at_root(std::vector<TypeClass> a_types) {
    PipelineDag dag = chain3(512, 256);
    dag.funcs[0].value_types = std::move(a_types);
    dag.funcs[0].bytes_per_point = 8;
    Decisions d = chain3_strips();
    for (int id = 0; id < 3; id++)
        d.mut(id).placement = Placement::Root;
    return estimate(dag, d);
}

} // namespace

TEST_CASE("a strip's buffers count only while they live: freed after their last use",
          "[allocator]") {
    // 1600 x 8 rows x 4 bytes = 50 KiB each, 150 KiB per strip in all; but A is freed once B
    // is computed, so at most two (100 KiB) are live at once: under the 128 KiB threshold.
    PipelineDag dag = chain3(1600, 256);
    const AllocatorEstimate e = estimate(dag, chain3_strips());
    CHECK(e.heap_mallocs == 3 * 32);
    CHECK(e.page_faults == 0);
    // Read by the strip's consumer itself, A lives to the strip's end: 150 KiB at D.
    PipelineDag wide = chain3(1600, 256);
    wide.funcs[3].stages[0].loads.push_back(test::simple_load(
        ProducerKind::Func, 0, 1, 2, {{1, 1, true}, {0, 1, true}, {0, 1, true}, {1, 1, true}}));
    wide.edges.push_back(test::offset_edge(3, 0, ProducerKind::Func, 0, {0, 0}, {0, 0}, 1));
    wide.link();
    const AllocatorEstimate w = estimate(wide, chain3_strips());
    // Each of the 3 x 32 allocations re-faults (150 - 128) / 150 of its 13 pages (50 KiB).
    CHECK(w.page_faults == Approx(3 * 32 * 13 * (150.0 - 128) / 150));
}

TEST_CASE("a buffer that fits in the top pad the last growth left does not grow the arena",
          "[allocator]") {
    // The main arena grows by a request plus the 128 KiB top pad. P0 160 KiB (4096 x 10 rows x
    // 4 bytes, mmap'd at first: the threshold is 320 KiB) grows it to 288 KiB; P1, 80 KiB
    // above it, fits: freed, the top holds 288 KiB, under the threshold (bench
    // depthwise_separable_conv, 146 KiB then 115 KiB a strip: 0.1 faults a run measured where
    // 1,827 were charged while the pad was added to the most live).
    PipelineDag dag = two_producers(4096, 256);
    dag.funcs[1].bytes_per_point = 2;
    AllocatorEstimate e = estimate(dag, strips(Placement::At, Placement::At));
    CHECK(e.trim_threshold_bytes == 320 * 1024);
    CHECK(e.page_faults == 0);
    // The other way round, P1's 80 KiB fits the pad a trim left, and P0 grows the arena to
    // 240 KiB plus the pad, over the threshold: each strip re-faults (240 - 128) / 240 of
    // both buffers' 60 pages.
    std::swap(dag.funcs[0].bytes_per_point, dag.funcs[1].bytes_per_point);
    e = estimate(dag, strips(Placement::At, Placement::At));
    CHECK(e.trim_threshold_bytes == 320 * 1024);
    CHECK(e.page_faults == Approx(32 * 60 * (240.0 - 128) / 240));
    // Root buffers alike, in the main arena: P0 160 KiB then P1 80 KiB (8 rows, 10 with the
    // stencil's) live together at 240 KiB, and the top holds 288 KiB once they are freed.
    PipelineDag roots = two_producers(4096, 8);
    roots.funcs[1].bytes_per_point = 2;
    e = estimate(roots, strips(Placement::Root, Placement::Root));
    CHECK(e.root_heap_bytes == 240 * 1024);
    CHECK(e.trim_threshold_bytes == 320 * 1024);
    CHECK(e.page_faults == 0);
    std::swap(roots.funcs[0].bytes_per_point, roots.funcs[1].bytes_per_point);
    e = estimate(roots, strips(Placement::Root, Placement::Root));
    CHECK(e.page_faults == Approx(60));
    // Root buffers that fit in the pad a trim left (40 KiB each) never grow the arena: their
    // frees release nothing, though the threshold is the least, 128 KiB.
    PipelineDag small = two_producers(1024, 8);
    e = estimate(small, strips(Placement::Root, Placement::Root));
    CHECK(e.trim_threshold_bytes == 128 * 1024);
    CHECK(e.root_heap_bytes == 80 * 1024);
    CHECK(e.page_faults == 0);
}

TEST_CASE("a freed buffer's hole that a larger one does not fit makes the arena reach past "
          "the most ever live",
          "[allocator]") {
    // A and B 200 KiB each (6400 x 8 rows x 4 bytes), D 400 KiB (8 bytes a point): D, mmap'd
    // at first, sets the threshold at 800 KiB. At most B + D = 600 KiB are live at once, but A
    // is freed (once B is computed) below B, and D does not fit its hole: D goes above B, the
    // arena reaches 800 KiB, and with the top pad the strip's frees pass the threshold (bench
    // camera_pipe, per 8-row strip: 486 KiB reached, at most 344 KiB live, measured 50 ms
    // against 22 ms for the pick before; halide_free alone 7.4 ms a run).
    PipelineDag dag = chain3(6400, 256);
    dag.funcs[2].bytes_per_point = 8;
    const AllocatorEstimate e = estimate(dag, chain3_strips());
    CHECK(e.trim_threshold_bytes == 800 * 1024);
    // Each of 32 strips re-faults (800 - 128) / 800 of A's 50, B's 50 and D's 100 pages.
    CHECK(e.page_faults == Approx(32 * 200 * (800.0 - 128) / 800));
    // Where D fits A's hole (all three 100 KiB), the arena reaches only the most live at
    // once, 200 KiB, which with the pad passes the 128 KiB threshold (nothing is mmap'd).
    PipelineDag same = chain3(3200, 256);
    const AllocatorEstimate s = estimate(same, chain3_strips());
    CHECK(s.trim_threshold_bytes == 128 * 1024);
    CHECK(s.page_faults == Approx(32 * 3 * 25 * (200.0 - 128) / 200));
}

TEST_CASE("the trim's charge ramps across half a percent of the threshold", "[allocator]") {
    const double t = 3656.25 * 1024; // bench max_filter's threshold: twice `table`
    CHECK(trim_share(0.99 * t, t) == 0);
    CHECK(trim_share(0.995 * t, t) == 0);
    CHECK(trim_share(t, t) == Approx(0.5));
    CHECK(trim_share(1.0025 * t, t) == Approx(0.75));
    CHECK(trim_share(1.005 * t, t) == 1);
    CHECK(trim_share(2 * t, t) == 1);
    // max_filter's faster schedule: window_1 + table + window_3 + the top pad, 0.85% under.
    CHECK(trim_share((1279.0 + 1828 + 390 + 128) * 1024, t) == 0);
    // A top at the pad a trim keeps releases nothing, even at the least threshold.
    CHECK(trim_share(128 * 1024, 128 * 1024) == 0);
}

TEST_CASE("an update split with a RoundUp tail allocates whole tiles", "[allocator]") {
    // P(x, y) = in(x, y); P(x, y) += 1 (an update); C = P. P per strip of 32 rows of C, its
    // update's y split by 12 with RoundUp: Halide allocates 36 rows.
    PipelineDag dag = two_producers(256, 256);
    FuncNode &p = dag.funcs[0];
    Stage up = p.stages[0];
    up.index = 1;
    up.loads.clear();
    up.rounds_up = {0, 1};
    p.stages.push_back(up);
    p.can_inline = false;
    Decisions d = strips(Placement::At, Placement::Root);
    d.mut(2).stages[0].loops[1] = {LoopMode::Split, 32};
    d.mut(0).stages.push_back(sched({{LoopMode::Inner, 0}, {LoopMode::Split, 12}}, 8, 0));
    const Nests n = build_all_nests(dag, d);
    // 34 rows needed (the 3-row stencil), rounded up to 36.
    CHECK(n[0]->region[1].extent() == 34);
    CHECK(n[0]->alloc_points == 256.0 * 36);
    // The work is counted over the region: the update's two extra rows are not (docs/COSTMODEL.md).
    CHECK(n[0]->stages[1].loop_box[1].extent() == 34);
    CHECK(n[0]->stages[0].loop_box[1].extent() == 34);
    // Without the RoundUp tail (or unsplit) the buffer is what is computed.
    dag.funcs[0].stages[1].rounds_up = {0, 0};
    CHECK(build_all_nests(dag, d)[0]->alloc_points == 256.0 * 34);
}

TEST_CASE("Root buffers count while they live: a chain holds two at once", "[allocator]") {
    // A (1 MiB: 512 x 256 points of 8 bytes), B and D (512 KiB each), all at root: A, mmap'd
    // at first, sets the trim threshold at 2 MiB. A is freed once B is computed and D takes
    // its hole, so the main arena reaches 1.5 MiB, under the threshold with the top pad:
    // nothing faults, though the three total 2 MiB (random pipeline 101069: five Root buffers
    // of 4.6-6.4 MB, 25 MB in all, under a 12.8 MB threshold, ran without a fault).
    const AllocatorEstimate e = chain3_at_root({TypeClass::F64});
    CHECK(e.trim_threshold_bytes == 2048 * 1024);
    CHECK(e.root_heap_bytes == 2048 * 1024);
    CHECK(e.page_faults == 0);
    // Were D read by C alongside B (both live to the end), the arena would reach 2 MiB.
}

TEST_CASE("a nest's buffers count beside the Root buffers live while it runs", "[allocator]") {
    // chain3(1024, 256): A at root (2 MiB, 8 bytes a point; it sets the threshold at 4 MiB),
    // B at root (1 MiB), D per 256-row strip of C (1 MiB). A is freed once B is computed, so
    // while C runs only B and D are live (2 MiB, and D goes into A's hole): the arena reaches
    // 3 MiB, under the threshold with the top pad. Adding D to the Root peak (A + B + D =
    // 4 MiB) would trim, and every Root page would fault each run.
    PipelineDag dag = chain3(1024, 256);
    dag.funcs[0].bytes_per_point = 8;
    Decisions d = chain3_strips();
    d.mut(3).stages = {sched({{LoopMode::Inner, 0}, {LoopMode::Split, 256}}, 8, 1)};
    d.mut(0).placement = Placement::Root;
    d.mut(1).placement = Placement::Root;
    const AllocatorEstimate e = estimate(dag, d);
    CHECK(e.trim_threshold_bytes == 4096 * 1024);
    CHECK(e.root_heap_bytes == 3072 * 1024);
    CHECK(e.page_faults == 0);
}

TEST_CASE("each Tuple element is an allocation of its own", "[allocator]") {
    // The chain above with A a Tuple of two floats: the same 1 MiB, but Halide allocates two
    // 512 KiB buffers, so the threshold after a run is 1 MiB, and the 1.5 MiB the arena
    // reaches trims it: every Root page faults again (random pipeline 101083: a Tuple of two
    // 15.7 MB buffers, 13,000 faults a run measured, 0 predicted with the Tuple one buffer).
    const AllocatorEstimate e = chain3_at_root({TypeClass::F32, TypeClass::F32});
    CHECK(e.trim_threshold_bytes == 1024 * 1024);
    CHECK(e.page_faults == 256 + 128 + 128);
}
