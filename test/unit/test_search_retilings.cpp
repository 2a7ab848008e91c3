// The consumer re-tiled for its producer: a new split whose outer part holds the producer,
// and parallel strips of rows down which the producer slides (search/SearchRetilings.cpp).
#include "PlacementHelpers.h"
#include "TinyDags.h"
#include "search/ScheduleText.h"
#include "search/SearchSpace.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace sextant;
using test::children_after;
using test::downsample_2d;
using test::root_c;

namespace {

/** The children that re-tile C for P (SearchSpaceOptions::retile_consumers), as
 * "loop:mode/tile@level" of C's changed loop and P's level. */
std::set<std::string> retiled(const PipelineDag &dag, std::vector<LoopTiling> loops) {
    SearchSpace space(dag);
    const FuncSched c = root_c(std::move(loops));
    const StageSched &s = c.stages[0];
    std::vector<StatePtr> kids = children_after(space, {c});
    std::set<std::string> out;
    for (const StatePtr &k : kids) {
        const FuncSched &kc = k->decisions[1];
        if (kc == c) continue;
        REQUIRE(k->decisions[0].placement == Placement::At);
        REQUIRE(k->decisions[0].at_func == 1);
        for (size_t i = 0; i < s.loops.size(); i++) {
            const LoopTiling &t = kc.stages[0].loops[i];
            if (t == s.loops[i]) continue;
            out.insert(dag.funcs[1].stages[0].loops[i].name + ":" +
                       (t.mode == LoopMode::Outer ? "outer" : "split" + std::to_string(t.tile)) +
                       "@" + std::to_string(k->decisions[0].at_level));
        }
        // The re-tiled consumer's nest is rebuilt, and P's region is what one iteration of
        // the new loop reads.
        CHECK(k->nests[1]->stages[0].order[size_t(k->decisions[0].at_level)].outer_part);
    }
    return out;
}

} // namespace

TEST_CASE("a producer is offered inside its consumer re-tiled for it", "[search]") {
    // C (x vector 8, then y; both whole) was tiled before P was placed. P may go at the outer
    // part of a new split of either loop, or per row with y moved outside, unless that
    // hits the strided vector-tail hazard: per row of a 54-wide stride-2 downsample it does.
    const std::vector<LoopTiling> rows = {{LoopMode::Inner, 0}, {LoopMode::Inner, 0}}; // x, y
    CHECK(retiled(downsample_2d(54, 2), rows) ==
          std::set<std::string>{"x:split16@0", "y:split4@0"});
    CHECK(retiled(downsample_2d(56, 2), rows) ==
          std::set<std::string>{"x:split16@0", "y:outer@0", "y:split4@0"});
    // Nothing to re-tile when every loop is already split or outside.
    CHECK(retiled(downsample_2d(56, 2), {{LoopMode::Split, 16}, {LoopMode::Outer, 0}}).empty());
}

TEST_CASE("a producer slides down parallel strips of its root consumer", "[search]") {
    // C (x vector 8 whole, y whole, parallel over y) was tiled before P was placed. P, read
    // by C along y + 0 and y + 1, may be stored per strip of rows of a re-tiled C and computed
    // per row (SearchSpaceOptions::slide_strips): strips at least one per core, two per image.
    auto strips = [](const PipelineDag &dag, const SearchSpaceOptions &opt) {
        SearchSpace space(dag);
        FuncSched c = root_c({{LoopMode::Inner, 0}, {LoopMode::Inner, 0}});
        c.stages[0].parallel = 1;
        std::set<int64_t> rows;
        for (const StatePtr &k : children_after(space, {c}, opt)) {
            const FuncSched &p = k->decisions[0];
            if (p.placement != Placement::At || p.store_level < 0) continue;
            const StageSched &cs = k->decisions[1].stages[0];
            REQUIRE(cs.loops[1].mode == LoopMode::Split);
            CHECK(cs.loops[0] == (LoopTiling{LoopMode::Inner, 0}));
            const StageNest &n = k->nests[1]->stages[0];
            // (y_o parallel, y_i, x vectorized): stored per strip, computed per row.
            CHECK(p.store_level == 0);
            CHECK(p.at_level == 1);
            CHECK(cs.parallel == 1);
            CHECK(n.order[0].outer_part);
            CHECK(!n.order[1].outer_part);
            CHECK(n.order[2].vectorized);
            // One realization computes the new row only, two rows stored (the window).
            CHECK(k->nests[0]->region[1].extent() == 2);
            CHECK(parse_schedule_text(dag, to_schedule_text(dag, k->decisions)) == k->decisions);
            rows.insert(cs.loops[1].tile);
        }
        return rows;
    };
    SearchSpaceOptions opt;
    CHECK(strips(downsample_2d(64, 1, 256), opt) == std::set<int64_t>{16, 32, 64, 128});
    opt.coarse = true;
    CHECK(strips(downsample_2d(64, 1, 256), opt) == std::set<int64_t>{64});
    opt.coarse = false;
    // Fewer strips than cores: no strip of 128 rows on 16 cores.
    PipelineDag wide = downsample_2d(64, 1, 256);
    wide.machine = test::avx2_machine(16);
    CHECK(strips(wide, opt) == std::set<int64_t>{16});
    // A downsample reads disjoint rows per output row: nothing slides.
    CHECK(strips(downsample_2d(64, 2, 256), opt).empty());
    opt.slide_strips = false;
    CHECK(strips(downsample_2d(64, 1, 256), opt).empty());
}

TEST_CASE("a short loop kept outside its consumer's tiles is brought inside them for a producer",
          "[search]") {
    // in -> P(x, y, c) -> C(x, y, c) = P(x, y, c) * 2, C over 64 x 32 x `channels`, at root
    // with its channels outside its 4-row bands (x vector 8, y split 4, c outer): P computed
    // at C's band loop would run once per channel. The search also offers C with c inside
    // the bands and P per band, for a loop of at most 4 points (colour channels).
    auto offered = [](int64_t channels, SearchSpaceOptions opt = {}) {
        PipelineDag dag;
        dag.machine = test::avx2_machine(2);
        const Box64 b = {{0, 63}, {0, 31}, {0, channels - 1}};
        dag.inputs.push_back(test::input(b));
        std::vector<JacobianEntry> identity;
        for (int d = 0; d < 3; d++)
            for (int l = 0; l < 3; l++)
                identity.push_back({d == l ? 1 : 0, 1, true});
        for (int id = 0; id < 2; id++) {
            FuncNode f = test::func(id, id == 0 ? "P" : "C", b);
            f.can_inline = id == 0;
            f.is_output = id == 1;
            Stage s;
            s.func = id;
            s.name = f.name;
            s.loops = {test::pure_loop("x", 0, 0, 63), test::pure_loop("y", 1, 0, 31),
                       test::pure_loop("c", 2, 0, channels - 1)};
            s.ops.at(OpKind::Mul, TypeClass::F32) = 1;
            s.loads = {test::simple_load(id == 0 ? ProducerKind::Input : ProducerKind::Func, 0, 1,
                                         3, identity)};
            f.stages.push_back(s);
            dag.funcs.push_back(f);
            dag.edges.push_back(
                test::offset_edge(id, 0, id == 0 ? ProducerKind::Input : ProducerKind::Func, 0,
                                  {0, 0, 0}, {0, 0, 0}, 1));
        }
        dag.outputs = {1};
        dag.link();
        SearchSpace space(dag);
        const FuncSched c =
            root_c({{LoopMode::Inner, 0}, {LoopMode::Split, 4}, {LoopMode::Outer, 0}});
        int found = 0;
        for (const StatePtr &k : children_after(space, {c}, opt)) {
            const FuncSched &kc = k->decisions[1];
            if (kc.stages[0].loops[2].mode != LoopMode::Inner) continue;
            // Only c moved; P at the outer part of y, the outermost loop now.
            CHECK(kc.stages[0].loops[1] == (LoopTiling{LoopMode::Split, 4}));
            REQUIRE(k->decisions[0].placement == Placement::At);
            CHECK(k->decisions[0].at_func == 1);
            const ConcreteLoop &at = k->nests[1]->stages[0].order[size_t(k->decisions[0].at_level)];
            CHECK(at.outer_part);
            CHECK(at.stage_loop == 1);
            found++;
        }
        return found;
    };
    CHECK(offered(3) > 0); // one placement, with each of P's tilings
    CHECK(offered(8) == 0);
    // The limit is SearchSpaceOptions::retile_inside_max_points.
    SearchSpaceOptions two;
    two.retile_inside_max_points = 2;
    CHECK(offered(3, two) == 0);
}
