// Search tests for the limits on what is offered (Halide's buffer size) and for autotuning's
// mutations of a schedule.
#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/BeamSearch.h"
#include "search/Candidates.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace sextant;

TEST_CASE("no buffer over the target's size limit is offered while another schedule exists",
          "[search]") {
    PipelineDag dag = test::stencil_2d();
    const double root_bytes = double(box_volume(dag.funcs[0].bounds)) * 4; // P at root, f32
    dag.machine.max_buffer_bytes = int64_t(root_bytes) - 1;
    SearchSpace space(dag);
    test::PlacementPrices eval(0.0, 0.5, 1.0); // root cheapest
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 2;
    for (int dropout : {100, 50}) {
        opt.random_dropout = dropout;
        StatePtr best = beam_search(space, eval, opt, nullptr);
        REQUIRE(best);
        CHECK_FALSE(best->buffer_too_large);
        CHECK(best->decisions[0].placement != Placement::Root); // what the evaluator likes best
        CHECK(best->largest_buffer_bytes <= double(dag.machine.max_buffer_bytes));
    }
    // Every child of the state with the output decided stays under the limit.
    SearchSpaceOptions so;
    int children = 0;
    StatePtr first;
    space.children(*space.initial_state(), so, [&](StatePtr c) {
        if (!first) first = c;
    });
    REQUIRE(first);
    eval.evaluate({first.get()});
    space.children(*first, so, [&](StatePtr c) {
        children++;
        CHECK_FALSE(c->buffer_too_large);
    });
    CHECK(children > 0);

    // When nothing fits (P cannot be inlined, and any buffer of it is too large), the search
    // still ends, and says which Func's buffer is too large.
    dag.funcs[0].can_inline = false;
    dag.machine.max_buffer_bytes = 1;
    SearchSpace tight(dag);
    StatePtr over = beam_search(tight, eval, opt, nullptr);
    REQUIRE(over);
    CHECK(over->buffer_too_large);
    CHECK(over->largest_buffer_func == 0);
}

namespace {

/** transpose_reduce searched with the analytical model (beam 4, two passes): the schedule
 * autotuning's mutations and tweaks start from. */
struct Searched {
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space{dag};
    AnalyticalModel model{dag.machine.parallelism, double(dag.machine.last_level_cache_bytes)};
    ModelEvaluator eval{dag, model};
    BeamSearchOptions opt;
    StatePtr best;
    std::string text;
    Searched() {
        opt.beam_size = 4;
        opt.num_passes = 2;
        best = beam_search(space, eval, opt, nullptr);
        if (best) text = to_schedule_text(dag, best->decisions);
    }
};

} // namespace

TEST_CASE("a mutation changes one Func, keeps those before it and is a legal schedule",
          "[search]") {
    Searched t;
    REQUIRE(t.best);
    const PipelineDag &dag = t.dag;
    const SearchSpace &space = t.space;
    ModelEvaluator &eval = t.eval;
    const BeamSearchOptions &opt = t.opt;
    const StatePtr &best = t.best;
    const std::string &text = t.text;
    BeamSearchOptions complete = opt;
    complete.beam_size = 2;
    std::vector<SearchCandidate> ms =
        mutate_schedule(dag, space, eval, text, 4, complete, 7, "mutate:0:");
    REQUIRE(!ms.empty());
    std::set<std::string> texts;
    for (const SearchCandidate &m : ms) {
        INFO(m.source << "\n" << m.text);
        CHECK(m.text != text);
        CHECK(texts.insert(m.text).second); // distinct
        REQUIRE(m.state);
        CHECK(space.is_complete(*m.state));
        CHECK(m.state->cost > 0);
        // The source names the step; every Func decided before it is as in the original.
        const int k = std::stoi(m.source.substr(std::string("mutate:0:").size()));
        for (int i = 0; i < k; i++) {
            const int f = space.order()[size_t(i)];
            CHECK(m.state->decisions[size_t(f)] == best->decisions[size_t(f)]);
        }
        CHECK_NOTHROW(parse_schedule_text(dag, m.text));
    }
}

TEST_CASE("a tweak nudges one Func's tiling in place and keeps every other Func", "[search]") {
    Searched t;
    REQUIRE(t.best);
    std::vector<SearchCandidate> ts =
        tweak_schedule(t.dag, t.space, t.eval, t.text, 6, {}, 11, "tweak:");
    REQUIRE(ts.size() >= 2);
    std::set<std::string> texts;
    for (const SearchCandidate &c : ts) {
        INFO(c.source << "\n" << c.text);
        CHECK(c.text != t.text);
        CHECK(texts.insert(c.text).second);
        REQUIRE(c.state);
        CHECK(t.space.is_complete(*c.state));
        CHECK(c.state->cost > 0);
        CHECK_NOTHROW(t.space.replay(c.text));
        // Only the named Func changed, and only in its tiling: where it is computed and
        // stored is as before, and one or two of its stages' fields differ.
        const int k = std::stoi(c.source.substr(std::string("tweak:").size()));
        const int tweaked = t.space.order()[size_t(k)];
        for (const FuncNode &f : t.dag.funcs) {
            const FuncSched &a = c.state->decisions[size_t(f.id)];
            const FuncSched &b = t.best->decisions[size_t(f.id)];
            if (f.id != tweaked) {
                CHECK(a == b);
                continue;
            }
            CHECK(a.placement == b.placement);
            CHECK(a.at_func == b.at_func);
            CHECK(a.at_level == b.at_level);
            REQUIRE(a.stages.size() == b.stages.size());
            int fields = 0;
            for (size_t s = 0; s < a.stages.size(); s++) {
                for (size_t l = 0; l < a.stages[s].loops.size(); l++)
                    fields += !(a.stages[s].loops[l] == b.stages[s].loops[l]);
                fields += (a.stages[s].vector_width != b.stages[s].vector_width) +
                          (a.stages[s].unroll != b.stages[s].unroll) +
                          (a.stages[s].parallel != b.stages[s].parallel) +
                          (a.stages[s].unroll_outer != b.stages[s].unroll_outer);
            }
            CHECK(fields >= 1);
            CHECK(fields <= 2);
        }
    }
}
