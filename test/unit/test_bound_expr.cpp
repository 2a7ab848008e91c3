#include "dag/BoundExpr.h"
#include "dag/PipelineDag.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>

#include <vector>

using sextant::BoundExpr;
using Op = sextant::BoundExpr::Op;
using sextant::InternalError;

TEST_CASE("BoundExpr evaluates Halide's integer semantics", "[dag]") {
    int64_t mins[2] = {-7, 10}, maxs[2] = {5, 20};
    BoundExpr half = BoundExpr::binary(Op::Div, BoundExpr::loop_min(0), BoundExpr::constant(2));
    CHECK(half.eval(mins, maxs) == -4); // floor division
    BoundExpr mod = BoundExpr::binary(Op::Mod, BoundExpr::loop_min(0), BoundExpr::constant(3));
    CHECK(mod.eval(mins, maxs) == 2); // Euclidean modulo
    BoundExpr clampd = BoundExpr::binary(
        Op::Min, BoundExpr::binary(Op::Max, BoundExpr::loop_max(1), BoundExpr::constant(0)),
        BoundExpr::constant(15));
    CHECK(clampd.eval(mins, maxs) == 15);
    BoundExpr div0 = BoundExpr::binary(Op::Div, BoundExpr::loop_max(0), BoundExpr::constant(0));
    CHECK(div0.eval(mins, maxs) == 0);
}

TEST_CASE("BoundExpr folds constants and recognises linear forms", "[dag]") {
    BoundExpr c = BoundExpr::binary(Op::Mul, BoundExpr::constant(6), BoundExpr::constant(7));
    CHECK(c.is_constant());
    CHECK(c.code()[0].value == 42);
    BoundExpr lin = BoundExpr::binary(
        Op::Sub, BoundExpr::binary(Op::Mul, BoundExpr::loop_max(1), BoundExpr::constant(2)),
        BoundExpr::constant(3));
    int dim = -1;
    bool uses_max = false;
    int64_t coeff = 0, offset = 0;
    REQUIRE(lin.as_linear(&dim, &uses_max, &coeff, &offset));
    CHECK(dim == 1);
    CHECK(uses_max);
    CHECK(coeff == 2);
    CHECK(offset == -3);
    CHECK(lin.to_string() == "((max1*2) - 3)");
    BoundExpr nonlin = BoundExpr::binary(Op::Div, BoundExpr::loop_min(0), BoundExpr::constant(2));
    CHECK_FALSE(nonlin.as_linear(&dim, &uses_max, &coeff, &offset));
}

TEST_CASE("an expression deeper than eval's stack is refused when it is built", "[dag]") {
    // Right-nested, each operation keeps one more value waiting: depth 1 + 63 = the limit.
    BoundExpr e = BoundExpr::loop_min(0);
    for (int i = 0; i + 1 < BoundExpr::kMaxDepth; i++)
        e = BoundExpr::binary(Op::Add, BoundExpr::loop_max(0), e);
    const int64_t mins[1] = {2}, maxs[1] = {3};
    CHECK(e.eval(mins, maxs) == 2 + 3 * (BoundExpr::kMaxDepth - 1));
    CHECK_THROWS_AS(BoundExpr::binary(Op::Add, BoundExpr::loop_max(0), e), InternalError);
    // Left-nested chains stay two deep however long.
    BoundExpr l = BoundExpr::loop_min(0);
    for (int i = 0; i < 1000; i++)
        l = BoundExpr::binary(Op::Max, l, BoundExpr::constant(i));
    CHECK(l.eval(mins, maxs) == 999);
}

TEST_CASE("a box keeps its intervals inline and on the heap alike", "[dag]") {
    using sextant::Box64;
    using sextant::Interval64;
    Box64 small = {{0, 9}, {2, 5}};
    CHECK(small.size() == 2);
    CHECK(sextant::box_volume(small) == 40);
    Box64 big; // more dimensions than the inline six: moves to the heap as it grows
    for (int64_t d = 0; d < 9; d++)
        big.push_back({0, d});
    REQUIRE(big.size() == 9);
    for (int64_t d = 0; d < 9; d++)
        CHECK(big[size_t(d)].max == d);
    big.push_back(big[0]); // an element of itself, while it reallocates
    CHECK(big.back() == Interval64{0, 0});
    Box64 copy = big;
    CHECK(copy == big);
    copy[3].max = 100;
    CHECK(big[3].max == 3); // a deep copy
    Box64 moved = std::move(copy);
    CHECK(moved[3].max == 100);
    CHECK(copy.empty());
    moved = small; // from the heap back to fewer dimensions
    CHECK(moved == small);
    Box64 grown(3);
    CHECK(grown[2].empty()); // default intervals, as std::vector's
    grown.resize(8, Interval64{1, 1});
    CHECK(grown[7] == Interval64{1, 1});
    grown.erase(grown.begin() + 1, grown.begin() + 3);
    CHECK(grown.size() == 6);
    grown.insert(grown.begin(), Interval64{5, 6});
    CHECK(grown[0] == Interval64{5, 6});
    CHECK(grown.size() == 7);
    const std::vector<Interval64> more = {{7, 7}, {8, 8}};
    grown.insert(grown.begin() + 1, more.begin(), more.end()); // past the inline six
    REQUIRE(grown.size() == 9);
    CHECK(grown[1] == Interval64{7, 7});
    CHECK(grown[2] == Interval64{8, 8});
    CHECK(grown[3].empty()); // what was at 1 (a default interval) moved up
    CHECK(*grown.rbegin() == Interval64{1, 1});
    CHECK(grown.heap_bytes() >= 9 * sizeof(Interval64));
    CHECK(small.heap_bytes() == 0);
}
