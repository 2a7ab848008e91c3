// The beam's selection and scoring: varied structures and costs, de-duplication, scoring
// beside the search on a JobQueue, sibling scoring, filtered passes, the lookahead pass and
// the allocator outlook pass.
#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/BeamSearch.h"
#include "search/ChildrenAhead.h"
#include "search/JobQueue.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

using namespace sextant;

namespace {

/** stencil_chain(2): P0 -> P1 -> C, decided C, P1, P0; searched under a cost of the decisions. */
struct Chain {
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space{dag};
    test::CostOf eval;
    explicit Chain(std::function<double(const State &)> cost) : eval(std::move(cost)) {}
    StatePtr search(const BeamSearchOptions &opt, SearchStats *stats = nullptr) {
        return beam_search(space, eval, opt, stats);
    }
};

/** A pick with P1 inside C (cost 2) that leads the final beam, after `passes` regular ones. */
void check_inside_pick(const StatePtr &best, const SearchStats &stats, size_t passes) {
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
    CHECK(stats.best_cost_per_pass.size() == passes);
    REQUIRE(!stats.final_beam.empty());
    CHECK(stats.final_beam[0] == best);
}

/** A price of P1's placement alone (at `root`, `inlined` or `inside` C) and, once P0 is
 * decided, `penalty` more where P1's placement is `penalized`. */
std::function<double(const State &)> chain_price(double root, double inlined, double inside,
                                                 double penalty,
                                                 std::function<bool(Placement)> penalized) {
    return [=](const State &s) {
        const Placement p1 = s.decisions[1].placement;
        double cost = p1 == Placement::Root ? root : p1 == Placement::Inline ? inlined : inside;
        if (s.decisions[0].placement != Placement::Undecided && penalized(p1)) cost += penalty;
        return cost;
    };
}

/** P1 at root looks cheapest when it is decided, but makes its producer P0 cost 10 more:
 * the trap a beam full of one structure falls into. */
const auto root_trap =
    chain_price(1.0, 3.0, 2.0, 10.0, [](Placement p) { return p == Placement::Root; });

} // namespace

TEST_CASE("the beam keeps several placement structures and costs", "[search]") {
    Chain chain(root_trap);
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    opt.structure_share = 0; // no cap: four tilings of P1 at root fill the beam
    opt.equal_cost_share = 0;
    StatePtr trapped = chain.search(opt);
    REQUIRE(trapped);
    CHECK(trapped->decisions[1].placement == Placement::Root);
    CHECK(trapped->cost == 11.0);
    opt.structure_share = 0.25; // one state per structure while others are left
    StatePtr best = chain.search(opt);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
    // The four tilings of P1 at root all cost 1: one state per cost while others are left
    // keeps P1 inside C as well, without the structure cap.
    opt.structure_share = 0;
    opt.equal_cost_share = 0.25;
    best = chain.search(opt);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
    // The share is of at most structure_cap_beam states, so that a wider beam holds more
    // structures rather than more tilings of each: all of a beam of 4 lets P1 at root fill it,
    // all of 1 state does not.
    opt.equal_cost_share = 0;
    opt.structure_share = 1.0;
    opt.structure_cap_beam = 0; // of the whole beam
    best = chain.search(opt);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::Root);
    opt.structure_cap_beam = 1;
    best = chain.search(opt);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::At);
    CHECK(best->cost == 2.0);
}

namespace {

/** root_trap, with P1's tilings at root a hair apart (under 1e-7 relative, by their hash):
 * never exactly equal, so the equal-cost share does not see them as one cost. */
double near_root_trap(const State &s) {
    double cost = root_trap(s);
    if (s.decisions[1].placement == Placement::Root) cost *= 1 + 1e-7 * double(s.hash % 997) / 997;
    return cost;
}

} // namespace

TEST_CASE("the near-cost pass crowds out near-equal costs and is taken only by a margin",
          "[search]") {
    Chain chain(near_root_trap);
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 2;
    opt.structure_share = 0;
    opt.equal_cost_share = 0.25;
    REQUIRE(opt.near_cost == 0); // off by default: P1's root tilings fill every pass's beam
    SearchStats stats;
    StatePtr trapped = chain.search(opt, &stats);
    REQUIRE(trapped);
    CHECK(trapped->decisions[1].placement == Placement::Root);
    CHECK(trapped->cost == Approx(11.0));
    CHECK(stats.best_cost_per_pass.size() == 2);
    // Costs within 1e-4 of one another count as one: P1 inside C stays in the beam, and its
    // schedule (2 against 11) is far more than the margin cheaper.
    opt.near_cost = BeamSearchOptions::kNearCost;
    stats = SearchStats();
    check_inside_pick(chain.search(opt, &stats), stats, 2);
    // A margin the near-cost pick does not clear (2 is not 90% below 11): the regular pick.
    opt.near_cost_margin = 0.9;
    StatePtr kept = chain.search(opt);
    REQUIRE(kept);
    CHECK(kept->hash == trapped->hash);
}

namespace {

/** P1 at root is the cheapest prefix, inlined the next; inside C it is dearer, but only there
 * does its producer P0 cost nothing: a prefix one decision behind that the next makes the
 * cheapest (bench nl_means' `weight`, docs/SEARCH.md). */
const auto one_step_trap =
    chain_price(1.0, 1.5, 2.0, 5.0, [](Placement p) { return p != Placement::At; });

} // namespace

TEST_CASE("the lookahead pass keeps a prefix the next decision makes the cheapest", "[search]") {
    Chain chain(one_step_trap);
    BeamSearchOptions opt;
    opt.beam_size = 2;
    opt.structure_share = 0.25; // one state per structure: P1 at root and inlined fill it
    opt.equal_cost_share = 0;
    SearchStats stats;
    StatePtr trapped = chain.search(opt, &stats);
    REQUIRE(trapped);
    CHECK(trapped->decisions[1].placement == Placement::Root);
    CHECK(trapped->cost == 6.0);
    // Twice the beam by partial cost holds P1 inside C; its cheapest child keeps it.
    opt.lookahead_pass = true;
    stats = SearchStats();
    check_inside_pick(chain.search(opt, &stats), stats, 3); // 3: the regular passes only
    // Taken only by its margin: 2 is not 70% below 6.
    opt.lookahead_margin = 0.7;
    StatePtr kept = chain.search(opt);
    REQUIRE(kept);
    CHECK(kept->hash == trapped->hash);
    // A lookahead as wide as the beam is no lookahead.
    opt.lookahead_margin = 0.05;
    opt.lookahead_width = 1;
    kept = chain.search(opt);
    REQUIRE(kept);
    CHECK(kept->hash == trapped->hash);
}

namespace {

/** P1 at root is the cheapest schedule (1 against 2 inside C), but while its producer P0 is
 * not placed it is charged 10 more unless the evaluator looks ahead (the allocator charge a
 * pyramid's small root buffers carry until the largest is placed: docs/SEARCH.md, "The
 * allocator outlook pass"). */
class OutlookPrice : public StateEvaluator {
public:
    void evaluate(const std::vector<State *> &states) override {
        for (State *s : states) {
            const Placement p1 = s->decisions[1].placement;
            s->cost = p1 == Placement::Root ? 1.0 : p1 == Placement::Inline ? 3.0 : 2.0;
            if (p1 == Placement::Root && s->decisions[0].placement == Placement::Undecided &&
                !outlook_)
                s->cost += 10;
            s->dirty.clear();
        }
    }
    void set_allocator_outlook(bool on) override {
        outlook_ = on;
        toggles_++;
    }
    int toggles() const { return toggles_; }

private:
    bool outlook_ = false;
    int toggles_ = 0;
};

} // namespace

TEST_CASE("the allocator outlook pass prices undecided producers ahead and wins by a margin",
          "[search]") {
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space(dag);
    BeamSearchOptions opt;
    opt.beam_size = 2;
    opt.num_passes = 2;
    opt.structure_share = 0; // tilings of P1 inside C fill the beam
    opt.equal_cost_share = 0;
    OutlookPrice eval;
    StatePtr regular = beam_search(space, eval, opt, nullptr);
    REQUIRE(regular);
    CHECK(regular->decisions[1].placement == Placement::At);
    CHECK(regular->cost == 2.0);
    CHECK(eval.toggles() == 0);
    opt.allocator_outlook_pass = true;
    SearchStats stats;
    StatePtr best = beam_search(space, eval, opt, &stats);
    REQUIRE(best);
    CHECK(best->decisions[1].placement == Placement::Root);
    CHECK(best->cost == 1.0);
    CHECK(eval.toggles() == 2);                  // on for the pass, off after it
    CHECK(stats.best_cost_per_pass.size() == 2); // the regular passes only
    // Taken only by the lookahead margin: 1 is not 70% below 2.
    opt.lookahead_margin = 0.7;
    StatePtr kept = beam_search(space, eval, opt, nullptr);
    REQUIRE(kept);
    CHECK(kept->decisions[1].placement == Placement::At);
}

namespace {

/** root_trap, and every state gets the same hash: only a key comparison tells them apart. */
class CollidingRootTrap : public test::CostOf {
public:
    CollidingRootTrap() : CostOf(root_trap) {}
    void evaluate(const std::vector<State *> &states) override {
        CostOf::evaluate(states);
        for (State *x : states)
            x->hash = 42;
    }
};

} // namespace

TEST_CASE("beam de-duplication compares decisions as well as hashes", "[search]") {
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space(dag);
    CollidingRootTrap eval;
    BeamSearchOptions opt;
    opt.beam_size = 4;
    opt.num_passes = 1;
    // Were states with equal hashes duplicates, one state would survive each step: P1 at
    // root (cost 1), then 11 in all.
    StatePtr best = beam_search(space, eval, opt, nullptr);
    REQUIRE(best);
    CHECK(best->cost == 2.0);
}

TEST_CASE("a job queue runs its jobs in order and hands back what one threw", "[search]") {
    for (bool threaded : {false, true}) {
        JobQueue q(threaded);
        CHECK(q.threaded() == threaded);
        std::vector<int> ran;
        for (int i = 0; i < 100; i++)
            q.push([&ran, i] { ran.push_back(i); });
        q.drain();
        REQUIRE(ran.size() == 100);
        for (int i = 0; i < 100; i++)
            CHECK(ran[size_t(i)] == i);
        // A job that throws: the ones after it never run, and the error comes back once.
        int after = 0;
        bool thrown = false;
        try {
            q.push([] { throw std::runtime_error("job failed"); });
            q.push([&after] { after++; });
            q.drain();
        } catch (const std::runtime_error &e) {
            thrown = std::string(e.what()) == "job failed";
        }
        CHECK(thrown);
        CHECK(after == 0);
        q.push([&after] { after++; }); // the queue goes on
        q.drain();
        CHECK(after == 1);
    }
}

namespace {

/** Throws from its `fail_at`-th call: what an evaluator on the scoring thread may do. */
class FailingEvaluator : public StateEvaluator {
public:
    FailingEvaluator(StateEvaluator &inner, int fail_at) : inner_(inner), fail_at_(fail_at) {}
    void evaluate(const std::vector<State *> &states) override {
        if (++calls_ == fail_at_) throw std::bad_alloc();
        inner_.evaluate(states);
    }

private:
    StateEvaluator &inner_;
    int fail_at_, calls_ = 0;
};

} // namespace

TEST_CASE("scoring beside the search keeps the states scoring in place keeps", "[search]") {
    PipelineDag dag = test::stencil_chain(4);
    SearchSpace space(dag);
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    ModelEvaluator eval(dag, model);
    for (int dropout : {100, 50}) {
        BeamSearchOptions opt;
        opt.beam_size = 8;
        opt.num_passes = 2;
        opt.random_dropout = dropout;
        opt.seed = 3;
        opt.max_batch = 300; // several selections per step, each scored in groups
        opt.score_beside = false;
        opt.make_beside = false;
        SearchStats alone_stats;
        StatePtr alone = beam_search(space, eval, opt, &alone_stats);
        REQUIRE(alone);
        CHECK(alone_stats.states_evaluated > 2 * 300);
        // Scored beside, made beside (children of later parents made on a helper thread), both.
        for (int mode : {1, 2, 3}) {
            CAPTURE(dropout, mode);
            opt.score_beside = mode & 1;
            opt.make_beside = mode & 2;
            SearchStats beside_stats;
            StatePtr beside = beam_search(space, eval, opt, &beside_stats);
            REQUIRE(beside);
            CHECK(beside_stats.states_evaluated == alone_stats.states_evaluated);
            CHECK(to_schedule_text(dag, beside->decisions) ==
                  to_schedule_text(dag, alone->decisions));
            CHECK(beside->cost == alone->cost);
            REQUIRE(beside_stats.final_beam.size() == alone_stats.final_beam.size());
            for (size_t i = 0; i < alone_stats.final_beam.size(); i++)
                CHECK(beside_stats.final_beam[i]->hash == alone_stats.final_beam[i]->hash);
        }
    }
    // An evaluator's exception reaches the caller, wherever it was thrown.
    for (int mode : {0, 1, 2, 3}) {
        FailingEvaluator failing(eval, 5);
        BeamSearchOptions opt;
        opt.beam_size = 8;
        opt.max_batch = 300;
        opt.score_beside = mode & 1;
        opt.make_beside = mode & 2;
        CHECK_THROWS_AS(beam_search(space, failing, opt, nullptr), std::bad_alloc);
    }
}

TEST_CASE("children made ahead come back parent by parent, and so do errors", "[search]") {
    for (bool threaded : {false, true}) {
        CAPTURE(threaded);
        // Parent i has i + 1 children, each a State whose num_decided is the parent.
        std::mutex m;
        std::set<std::thread::id> makers;
        auto make = [&](size_t i, std::vector<StatePtr> &out) {
            {
                std::lock_guard<std::mutex> lock(m);
                makers.insert(std::this_thread::get_id());
            }
            if (i == 7) throw std::runtime_error("parent 7");
            // Threaded, parent 0 waits (a while at most) until the helper makes a later one.
            for (int t = 0; threaded && i == 0 && t < 5000; t++) {
                {
                    std::lock_guard<std::mutex> lock(m);
                    if (makers.size() == 2) break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            for (size_t k = 0; k <= i; k++) {
                auto c = std::make_shared<State>();
                c->num_decided = int(i);
                out.push_back(std::move(c));
            }
        };
        ChildrenAhead ahead(12, make, threaded, 3);
        for (size_t i = 0; i < 7; i++) {
            std::vector<StatePtr> got = ahead.take(i);
            REQUIRE(got.size() == i + 1);
            for (const StatePtr &c : got)
                CHECK(c->num_decided == int(i));
            ahead.bury(got); // freed on the thread that made each
            CHECK(got.empty());
        }
        CHECK_THROWS_WITH(ahead.take(7), "parent 7");
        CHECK(ahead.take(8).size() == 9); // the parents after a failed one still come
        CHECK(makers.size() == (threaded ? 2u : 1u));
    }
}

TEST_CASE("siblings are scored by their own rows as if scored whole", "[search]") {
    // Children that differ only in the tiling of the Func just placed take every other score
    // from the first of them (State::siblings); the check mode scores each whole.
    PipelineDag dag = test::stencil_chain(4);
    SearchSpace space(dag);
    AnalyticalModel model(dag.machine.parallelism, double(dag.machine.last_level_cache_bytes));
    ModelEvaluator shortcut(dag, model), whole(dag, model, true);
    BeamSearchOptions opt;
    opt.beam_size = 8;
    opt.max_batch = 300;
    SearchStats a_stats, b_stats;
    StatePtr a = beam_search(space, shortcut, opt, &a_stats);
    StatePtr b = beam_search(space, whole, opt, &b_stats);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(to_schedule_text(dag, a->decisions) == to_schedule_text(dag, b->decisions));
    CHECK(a->cost == b->cost);
    REQUIRE(a_stats.final_beam.size() == b_stats.final_beam.size());
    for (size_t i = 0; i < a_stats.final_beam.size(); i++) {
        CHECK(a_stats.final_beam[i]->hash == b_stats.final_beam[i]->hash);
        CHECK(a_stats.final_beam[i]->cost == b_stats.final_beam[i]->cost);
    }
    CHECK(shortcut.timing().states == whole.timing().states);
    CHECK(shortcut.timing().rows < whole.timing().rows * 3 / 4);
    CHECK(whole.sibling_mismatches() == 0);
    CHECK(whole.sibling_checks() > 1000);
}

TEST_CASE("a filtered pass makes only the children of the structures it continues", "[search]") {
    PipelineDag dag = test::stencil_chain(3);
    SearchSpace space(dag);
    StatePtr s = space.initial_state();
    std::vector<StatePtr> first;
    space.children(*s, SearchSpaceOptions{}, &first);
    REQUIRE(!first.empty());
    s = first[0];
    std::vector<StatePtr> all;
    space.children(*s, SearchSpaceOptions{}, &all);
    std::set<uint64_t> structures;
    for (const StatePtr &c : all)
        structures.insert(c->placement_hash);
    REQUIRE(structures.size() >= 3);
    const std::set<uint64_t> allowed{*structures.begin(), *structures.rbegin()};
    std::vector<uint64_t> want, got;
    for (const StatePtr &c : all)
        if (allowed.count(c->placement_hash)) want.push_back(c->hash);
    CHECK(space.children(
        *s, SearchSpaceOptions{}, [&](StatePtr c) { got.push_back(c->hash); }, allowed));
    CHECK(got == want);
    CHECK(got.size() < all.size());
    // No allowed structure: nothing is made, and the caller is told to filter all children.
    got.clear();
    CHECK_FALSE(space.children(
        *s, SearchSpaceOptions{}, [&](StatePtr c) { got.push_back(c->hash); },
        std::set<uint64_t>{12345}));
    CHECK(got.empty());
}
