// ranked_pick (search/Candidates.h): one model proposes complete schedules, another chooses.
#include "TinyDags.h"
#include "costmodel/CostModel.h"
#include "costmodel/ModelEvaluator.h"
#include "search/Candidates.h"
#include "search/ScheduleText.h"

#include <catch2/catch.hpp>

#include <functional>
#include <set>

using namespace sextant;

namespace {

/** Ranks by ScheduleText: `preferred` costs `cost` (1), every other schedule 2. */
class PreferText : public StateEvaluator {
public:
    PreferText(const PipelineDag &dag, std::string preferred, double cost = 1.0)
        : dag_(dag), preferred_(std::move(preferred)), cost_(cost) {}
    void evaluate(const std::vector<State *> &states) override {
        for (State *s : states) {
            calls++;
            s->cost = to_schedule_text(dag_, s->decisions) == preferred_ ? cost_ : 2.0;
            s->dirty.clear();
        }
    }
    int calls = 0;

private:
    const PipelineDag &dag_;
    std::string preferred_;
    double cost_;
};

/** The analytical model proposing on the transpose-reduce DAG, with small searches. */
struct AnalyticalProposer {
    PipelineDag dag = test::transpose_reduce();
    SearchSpace space{dag};
    AnalyticalModel model{dag.machine.parallelism, double(dag.machine.last_level_cache_bytes)};
    std::function<std::unique_ptr<StateEvaluator>()> propose = [this] {
        std::unique_ptr<StateEvaluator> e = std::make_unique<ModelEvaluator>(dag, model);
        return e;
    };
    /** `count` candidates: a beam-4, two-pass search, then greedy and dropout picks. */
    CandidateSearchOptions options(int count) const {
        CandidateSearchOptions co;
        co.count = count;
        co.first.beam_size = 4;
        co.first.num_passes = 2;
        co.dropout_beam_size = 1;
        return co;
    }
};

} // namespace

TEST_CASE("ranked_pick: one model proposes, the other chooses whole schedules", "[search]") {
    AnalyticalProposer p;
    const PipelineDag &dag = p.dag;
    const SearchSpace &space = p.space;
    const auto &propose = p.propose;
    CandidateSearchOptions co = p.options(4);
    const std::vector<SearchCandidate> proposed = search_candidates(dag, space, propose, co);
    REQUIRE(proposed.size() >= 2);

    SECTION("the ranking model's favourite wins, even when it is not the proposer's") {
        PreferText rank(dag, proposed.back().text);
        RankedPick rp = ranked_pick(dag, space, propose, rank, co);
        REQUIRE(rp.candidates.size() == proposed.size());
        CHECK(rank.calls == int(proposed.size())); // each complete candidate scored once
        CHECK(rp.rank_costs.size() == proposed.size());
        CHECK(rp.chosen == int(proposed.size()) - 1);
        REQUIRE(rp.state);
        CHECK(space.is_complete(*rp.state));
        CHECK(to_schedule_text(dag, rp.state->decisions) == proposed.back().text);
        CHECK(rp.state->cost == 1.0); // the ranking model's cost, not the proposer's
    }
    SECTION("a tie keeps the earlier candidate: the proposer's beam pick") {
        PreferText rank(dag, "no such schedule");
        RankedPick rp = ranked_pick(dag, space, propose, rank, co);
        CHECK(rp.chosen == 0);
        CHECK(rp.candidates[0].source == "beam");
        CHECK(to_schedule_text(dag, rp.state->decisions) == proposed.front().text);
    }
    SECTION("with a trust margin the beam pick stays unless another is that much cheaper") {
        co.trust_margin = 0.05;
        PreferText near(dag, proposed.back().text, 1.92); // 4% below the others' 2
        RankedPick kept = ranked_pick(dag, space, propose, near, co);
        CHECK(kept.chosen == 0);
        CHECK(kept.rank_costs.back() == 1.92);
        CHECK(to_schedule_text(dag, kept.state->decisions) == proposed.front().text);
        CHECK(kept.state->cost == 2.0);                 // scored by the ranking model
        PreferText far(dag, proposed.back().text, 1.8); // 10% below
        CHECK(ranked_pick(dag, space, propose, far, co).chosen == int(proposed.size()) - 1);
        co.trust_margin = 0.03;
        CHECK(ranked_pick(dag, space, propose, near, co).chosen == int(proposed.size()) - 1);
    }
}

TEST_CASE("candidates are polished as the plugin polishes its pick when asked", "[search]") {
    // in -> P0 -> P1 -> C. Inlining P1 alone costs more, with P0 inlined too it pays: a greedy
    // search that decides P1 before P0 keeps P1 stored; the inlining polish then finds both.
    PipelineDag dag = test::stencil_chain(2);
    SearchSpace space(dag);
    auto cost = [](const State &s) {
        const bool p0 = s.decisions[0].placement == Placement::Inline;
        const bool p1 = s.decisions[1].placement == Placement::Inline;
        return 1.0 + (p1 ? 1.0 : 0.0) - (p0 ? 0.6 : 0.0) - (p0 && p1 ? 1.2 : 0.0);
    };
    auto propose = [&] {
        std::unique_ptr<StateEvaluator> e = std::make_unique<test::CostOf>(cost);
        return e;
    };
    CandidateSearchOptions co;
    co.count = 1;
    co.first.beam_size = 1;
    co.first.num_passes = 1;
    co.first.random_dropout = 100;
    const std::vector<SearchCandidate> plain = search_candidates(dag, space, propose, co);
    REQUIRE(plain.size() == 1);
    CHECK(plain[0].state->decisions[1].placement != Placement::Inline);
    CHECK(plain[0].state->cost == Approx(0.4));
    co.polish_margin = 0.005;
    const std::vector<SearchCandidate> polished = search_candidates(dag, space, propose, co);
    REQUIRE(polished.size() == 1);
    CHECK(polished[0].state->decisions[0].placement == Placement::Inline);
    CHECK(polished[0].state->decisions[1].placement == Placement::Inline);
    CHECK(polished[0].state->cost == Approx(0.2));
}

TEST_CASE("the pick's neighbours follow it: tweaks, then mutations, of the first search's pick",
          "[search]") {
    AnalyticalProposer p;
    const PipelineDag &dag = p.dag;
    const SearchSpace &space = p.space;
    CandidateSearchOptions co = p.options(3);
    const std::vector<SearchCandidate> plain = search_candidates(dag, space, p.propose, co);
    REQUIRE(plain.size() >= 2);
    CHECK(plain[1].source == "greedy");

    co.neighbours = 3;
    co.count = 1 + 2 * co.neighbours + 2;
    const std::vector<SearchCandidate> near = search_candidates(dag, space, p.propose, co);
    REQUIRE(near.size() >= 3);
    CHECK(near[0].text == plain[0].text); // the pick itself comes first
    const Decisions pick = parse_schedule_text(dag, plain[0].text);
    size_t i = 1;
    int tweaks = 0, mutations = 0;
    for (; i < near.size() && near[i].source.rfind("near-tweak:", 0) == 0; i++, tweaks++) {
        // One Func's tiling nudged where it is; every other Func as in the pick.
        int changed = 0;
        for (size_t f = 0; f < dag.funcs.size(); f++)
            if (!(near[i].state->decisions[f] == pick[f])) {
                changed++;
                CHECK(near[i].state->decisions[f].placement == pick[f].placement);
            }
        CHECK(changed >= 1);
    }
    for (; i < near.size() && near[i].source.rfind("near-mutate:", 0) == 0; i++, mutations++) {
        // The Funcs the search decided before the mutated one are the pick's.
        const std::string rest = near[i].source.substr(std::string("near-mutate:").size());
        const int k = std::stoi(rest);
        for (int j = 0; j < k; j++) {
            const size_t f = size_t(space.order()[size_t(j)]);
            CHECK(near[i].state->decisions[f] == pick[f]);
        }
    }
    CHECK(tweaks >= 1);
    CHECK(tweaks <= co.neighbours);
    CHECK(mutations <= co.neighbours);
    CHECK(tweaks + mutations >= 2);
    // Then the searches as before: the greedy pick follows the neighbours (unless one of
    // them is the same schedule).
    std::set<std::string> texts;
    for (const SearchCandidate &c : near)
        CHECK(texts.insert(c.text).second);
    if (i < near.size()) CHECK(near[i].source == "greedy");
}
