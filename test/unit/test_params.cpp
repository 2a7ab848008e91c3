#include "plugin/Params.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>

using sextant::Params;

TEST_CASE("defaults", "[params]") {
    Params p = Params::parse({});
    CHECK(p.search.beam_size == 32);
    CHECK(p.search.num_passes == 3);
    CHECK(p.search.random_dropout == 100);
    CHECK(p.search.seed == 0);
    CHECK(p.search.near_cost == sextant::BeamSearchOptions::kNearCost);
    CHECK(Params::parse({{"SEXTANT_NEAR_COST_PASS", "0"}}).search.near_cost == 0);
    CHECK(p.search.lookahead_pass);
    CHECK(p.search.lookahead_width == 2);
    CHECK(!Params::parse({{"SEXTANT_LOOKAHEAD_PASS", "0"}}).search.lookahead_pass);
    CHECK(Params::parse({{"SEXTANT_LOOKAHEAD_WIDTH", "3"}}).search.lookahead_width == 3);
    CHECK(Params::parse({{"SEXTANT_LOOKAHEAD_MARGIN", "10"}}).search.lookahead_margin == 0.1);
}

TEST_CASE("Adams2019 names are accepted and SEXTANT_ names win", "[params]") {
    Params p = Params::parse({{"HL_BEAM_SIZE", "4"},
                              {"HL_SEED", "9"},
                              {"SEXTANT_SEED", "12"},
                              {"HL_RANDOM_DROPOUT", "50"},
                              {"HL_NO_SUBTILING", "1"}});
    CHECK(p.search.beam_size == 4);
    CHECK(p.search.seed == 12);
    CHECK(p.search.random_dropout == 50);
}

TEST_CASE("the beam's structure caps can be set", "[params]") {
    Params p = Params::parse({{"SEXTANT_KEEP_STRUCTURES", "8"}, {"SEXTANT_STRUCTURE_SHARE", "0"}});
    CHECK(p.search.keep_structures == 8);
    CHECK(p.search.structure_share == 0);
    CHECK(Params::parse({{"SEXTANT_STRUCTURE_SHARE", "50"}}).search.structure_share == 0.5);
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_STRUCTURE_SHARE", "150"}}),
                      Catch::Contains("[0, 100]"));
}

TEST_CASE("the learned model ranks the analytical model's candidates unless told to search",
          "[params]") {
    CHECK(Params::parse({}).learned_candidates == 4);
    CHECK(Params::parse({{"SEXTANT_LEARNED_SEARCH", "beam"}}).learned_candidates == 0);
    CHECK(Params::parse({{"SEXTANT_LEARNED_SEARCH", "8"}}).learned_candidates == 8);
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_LEARNED_SEARCH", "0"}}),
                      Catch::Contains("SEXTANT_LEARNED_SEARCH"));
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_LEARNED_SEARCH", "some"}}),
                      Catch::Contains("not an integer"));
    Params p = Params::parse({{"SEXTANT_COST_MODEL", "learned"}});
    CHECK_THAT(p.describe(), Catch::Contains("learned_search=4 candidates, margin 5%"));
    CHECK(Params::parse({}).learned_margin == 0.05);
    CHECK(Params::parse({{"SEXTANT_LEARNED_MARGIN", "0"}}).learned_margin == 0);
    CHECK(Params::parse({{"SEXTANT_LEARNED_MARGIN", "12"}}).learned_margin == 0.12);
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_LEARNED_MARGIN", "101"}}),
                      Catch::Contains("[0, 100]"));
    CHECK(Params().learned_neighbours == 0);
    Params n =
        Params::parse({{"SEXTANT_LEARNED_NEIGHBOURS", "8"}, {"SEXTANT_COST_MODEL", "learned"}});
    CHECK(n.learned_neighbours == 8);
    CHECK_THAT(n.describe(), Catch::Contains("margin 5%, neighbours 8"));
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_LEARNED_NEIGHBOURS", "-1"}}),
                      Catch::Contains("SEXTANT_LEARNED_NEIGHBOURS"));
}

TEST_CASE("unknown SEXTANT_ keys and bad values are errors", "[params]") {
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_BEAM", "4"}}),
                      Catch::Contains("Unknown option SEXTANT_BEAM"));
    CHECK_THROWS_WITH(Params::parse({{"HL_BEAM_SIZE", "four"}}),
                      Catch::Contains("HL_BEAM_SIZE=four is not an integer"));
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_RANDOM_DROPOUT", "0"}}),
                      Catch::Contains("[1, 100]"));
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_COST_MODEL", "magic"}}),
                      Catch::Contains("expected 'learned' or 'analytical'"));
    CHECK_THROWS_WITH(Params::parse({{"SEXTANT_SEARCH_SPACE", "band_tiles=4,split_factors=x"}}),
                      Catch::Contains("SEXTANT_SEARCH_SPACE=band_tiles=4,split_factors=x: "
                                      "split_factors: 'x' is not a size"));
    const Params spaced = Params::parse({{"SEXTANT_SEARCH_SPACE", "large_pipeline_funcs=50"}});
    CHECK(spaced.search_space == "large_pipeline_funcs=50");
    CHECK(spaced.search.space.large_pipeline_funcs == 50); // what the search reads
    CHECK(Params().search.space.large_pipeline_funcs == 100);
}
