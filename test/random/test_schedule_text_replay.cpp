// ScheduleText replay: every candidate the search writes for a random pipeline replays as it
// was written, and hand-broken texts of one are user errors that name the line and the mistake
// (they crashed the plugin or reached Halide before the checks after parsing).
#include "costmodel/TrainingReplay.h"
#include "halide/DagBuilder.h"
#include "plugin/Autoscheduler.h"
#include "random_pipelines/RandomPipeline.h"
#include "search/LoopNest.h"
#include "search/ScheduleText.h"
#include "search/SearchSpace.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

using namespace sextant;
namespace rp = sextant::random_pipelines;

namespace {

std::vector<Halide::Internal::Function> output_functions(const rp::RandomPipeline &p) {
    std::vector<Halide::Internal::Function> outs;
    for (const Halide::Func &f : p.outputs)
        outs.push_back(f.function());
    return outs;
}

/** The distinct candidates (beam, greedy, dropout searches) of a small search of `seed`, and
 * the DAG of the same pipeline (so its Func names are the texts'). */
std::vector<std::string> candidate_texts(uint64_t seed, PipelineDag *dag) {
    char dir[] = "/tmp/sextant-replay-XXXXXX";
    REQUIRE(mkdtemp(dir));
    rp::RandomPipeline p = rp::make_random_pipeline(seed);
    Params params;
    params.search.beam_size = 4;
    params.search.num_passes = 2;
    params.search.seed = seed;
    params.cost_model = "analytical";
    params.candidates_dir = dir;
    params.num_candidates = 8;
    MachineInfo m;
    m.parallelism = 2;
    *dag = build_pipeline_dag(output_functions(p), rp::default_run_target(), m);
    autoschedule(output_functions(p), rp::default_run_target(), m, params);
    std::vector<std::string> out;
    const std::string path = std::string(dir) + "/candidates.jsonl";
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        out.push_back(nlohmann::json::parse(line).at("schedule_text").get<std::string>());
    std::remove(path.c_str());
    rmdir(dir);
    return out;
}

/** The DAG of random pipeline `seed` at the faithful corpus' sizes on two cores. */
PipelineDag faithful_dag(uint64_t seed) {
    rp::RandomPipelineOptions o;
    o.min_extent = 256;
    o.max_input_points = 4194304;
    o.max_work = 3e8;
    rp::RandomPipeline p = rp::make_random_pipeline(seed, o);
    MachineInfo m;
    m.parallelism = 2;
    return build_pipeline_dag(output_functions(p), rp::default_run_target(), m);
}

/** `text` with the first match of `from` replaced by `to` (which must match). */
std::string edit(const std::string &text, const std::string &from, const std::string &to) {
    std::regex re(from);
    REQUIRE(std::regex_search(text, re));
    return std::regex_replace(text, re, to, std::regex_constants::format_first_only);
}

} // namespace

TEST_CASE("every candidate the search writes replays as written", "[replay]") {
    int seeds = 30;
    if (const char *n = std::getenv("SX_REPLAY_SEEDS")) seeds = std::atoi(n); // wider runs
    int texts = 0;
    for (uint64_t seed = 0; seed < uint64_t(seeds); seed++) {
        PipelineDag dag;
        for (const std::string &text : candidate_texts(seed, &dag)) {
            INFO("random pipeline " << seed << ":\n" << text);
            Decisions d;
            REQUIRE_NOTHROW(d = parse_schedule_text(dag, text));
            CHECK(to_schedule_text(dag, d) == text);
            texts++;
        }
    }
    CHECK(texts >= seeds);
}

TEST_CASE("a broken ScheduleText is a user error naming its line and mistake", "[replay]") {
    // A schedule of random pipeline 1 (a beam-4 search's pick): s8_matmul_clamped and
    // s8_matmul computed inside s11_boundary's loops, which the edits below break.
    const std::string good = R"(sextant-schedule 1
func s11_boundary root
  stage 0 loops x:inner y:split32/8 vector 16 unroll 2 parallel 2
func s8_matmul_clamped at s11_boundary 1
  stage 0 loops x:inner y:split2 vector 16 unroll 1 parallel 0 unroll_outer
func s8_matmul at s11_boundary 0
  stage 0 loops x:inner y:inner vector 16 unroll 1 parallel 0
  stage 1 loops s8_matmul_r$x:outer x:split32 y:inner vector 32 unroll 1 parallel 0
func s7_pointwise at s11_boundary 0
  stage 0 loops x:inner y:split3 vector 1 unroll 1 parallel 0
func s6_select inline
func s2_input_boundary inline
func mirror_interior at s11_boundary 0
  stage 0 loops x:inner y:split4 vector 1 unroll 1 parallel 0
func s2_input_boundary_guard inline
func s10_scan root
  stage 0 loops x:inner vector 16 unroll 1 parallel 0
  stage 1 loops s10_scan_r$x:inner vector 1 unroll 1 parallel 0
func s5_reduce_sum root
  stage 0 loops x:inner vector 16 unroll 1 parallel 0
  stage 1 loops s5_reduce_sum_r$x:middle x:split32 vector 32 unroll 1 parallel 1
func s0_input_boundary inline
func constant_exterior inline
func repeat_edge inline
func s0_input_boundary_guard inline
func s9_fan_in root
  stage 0 loops x:split128 y:split4 z:inner vector 32 unroll 1 parallel 2 unroll_outer
func s4_cast inline
func s3_pointwise inline
func s1_input_boundary inline
func repeat_edge$1 at s9_fan_in 0
  stage 0 loops x:inner y:outer z:inner vector 32 unroll 2 parallel 0
func s1_input_boundary_guard inline
)";
    rp::RandomPipeline p = rp::make_random_pipeline(1);
    MachineInfo m;
    m.parallelism = 2;
    const PipelineDag dag = build_pipeline_dag(output_functions(p), rp::default_run_target(), m);
    REQUIRE_NOTHROW(parse_schedule_text(dag, good));
    struct Case {
        const char *what, *from, *to, *message;
    };
    const Case cases[] = {
        {"a Func computed inside a Func that does not use it",
         "func s8_matmul_clamped at s11_boundary [0-9]+", "func s8_matmul_clamped at s10_scan 0",
         "Func 's8_matmul_clamped' is used by 's11_boundary', which is not inside loop 0 of "
         "'s10_scan'"},
        {"a level the consumer does not have", "func s8_matmul_clamped at s11_boundary [0-9]+",
         "func s8_matmul_clamped at s11_boundary 9", "level 9 is not a loop of 's11_boundary'"},
        {"a loop that no longer encloses the consumer", "func s8_matmul at s11_boundary [0-9]+",
         "func s8_matmul at s11_boundary 3",
         "is used by 's8_matmul_clamped', which is not inside loop 3"},
        {"computed at an inlined Func", "func s8_matmul at s11_boundary [0-9]+",
         "func s8_matmul at s6_select 0", "'s6_select' is inlined"},
        {"a cycle", "func s8_matmul at s11_boundary [0-9]+", "func s8_matmul at s8_matmul 0",
         "a cycle"},
        {"an output not at root", "func s11_boundary root", "func s11_boundary at s9_fan_in 0",
         "is an output of the pipeline: it must be root"},
        {"a Func with an update inlined",
         "func s8_matmul at s11_boundary [0-9]+\n  stage 0[^\n]*\n  stage 1[^\n]*",
         "func s8_matmul inline", "cannot be inlined"},
        {"no vector lanes", "vector [0-9]+", "vector 0", "vector width must be 1 to 1024"},
        {"no unrolling factor", "unroll [0-9]+", "unroll 0", "unroll must be 1 to 1024"},
        {"more parallel loops than loops", "parallel [0-9]+", "parallel 9",
         "parallel must be 0 to the stage's"},
        {"a Func placed twice", "func s10_scan root", "func s10_scan inline\nfunc s10_scan root",
         "was already placed on line"},
        {"an unknown Func", "func s10_scan root", "func s10_scann root",
         "no Func named 's10_scann'"},
        {"a bad split factor", "split32/8", "split32/0", "split factor must be positive"},
        {"an unknown keyword", "sextant-schedule 1", "sextant-schedule 1\nfunk s10_scan root",
         "unknown keyword 'funk'"},
        {"a future version", "sextant-schedule 1", "sextant-schedule 2", "unsupported version"},
    };
    for (const Case &c : cases) {
        INFO(c.what);
        const std::string bad = edit(good, c.from, c.to);
        try {
            parse_schedule_text(dag, bad);
            FAIL("accepted:\n" << bad);
        } catch (const UserError &e) {
            const std::string msg = e.what();
            CHECK_THAT(msg, Catch::Contains("schedule text line"));
            CHECK_THAT(msg, Catch::Contains(c.message));
        }
    }
}

TEST_CASE("a downsample's producer whose only serial loop inside has one iteration is refused",
          "[replay]") {
    // The analytical model's pick for random pipeline 200549 at the faithful corpus' sizes
    // (session 55): s3_downsample reads s2_conv_layer with stride 2 along its 16-lane x; inside
    // s2_conv_layer's level the serial loops are x's outer part, whose ShiftInwards tail loads
    // s2_conv_layer[ramp(1705, 2, 16)], and z, of extent 1, which Halide drops. Taking z for a
    // loop that keeps the index variable, the search offered it; it ran into SIGSEGV (an aligned
    // 64-byte load 32 bytes past a boundary: docs/SEARCH.md, "Stack alignment on AVX-512").
    const std::string crash = R"(sextant-schedule 1
func s5_reduce_sum root
  stage 0 loops x:inner y:outer vector 16 unroll 1 parallel 0
  stage 1 loops s5_reduce_sum_r$x:middle x:split32 y:outer vector 32 unroll 1 parallel 2
func s3_downsample at s5_reduce_sum 1 update 1
  stage 0 loops x:inner y:outer z:inner vector 16 unroll 1 parallel 0
func s2_conv_layer at s3_downsample 0
  stage 0 loops x:inner y:inner z:inner vector 16 unroll 1 parallel 0
  stage 1 loops s2_conv_layer_r$x:inner s2_conv_layer_r$y:inner s2_conv_layer_r$z:inner x:inner y:inner z:inner vector 1 unroll 1 parallel 0
func s0_input_boundary inline
func mirror_image root
  stage 0 loops x:inner y:split8 vector 64 unroll 1 parallel 1 unroll_outer
func s0_input_boundary_guard inline
func s4_pointwise root
  stage 0 loops x:inner vector 64 unroll 1 parallel 0
func s1_input_boundary inline
func constant_exterior inline
func repeat_edge inline
func s1_input_boundary_guard inline
)";
    const PipelineDag dag = faithful_dag(200549);
    const SearchSpace space(dag);
    try {
        space.replay(crash);
        FAIL("the crashing placement was accepted");
    } catch (const UserError &e) {
        CHECK_THAT(e.what(), Catch::Contains("line 7: Func 's2_conv_layer' computed at level 0 of "
                                             "'s3_downsample' leaves strided vector loads"));
    }
    // With 4 lanes, 868 columns leave no tail: the serial x loop moves every load's index,
    // and the same placement is accepted.
    REQUIRE_NOTHROW(
        space.replay(edit(crash, "y:outer z:inner vector 16", "y:outer z:inner vector 4")));
}

TEST_CASE("a Func at root over a constant region read strided by a constant-range tail is refused",
          "[replay]") {
    // The sampler's greedy candidate for random pipeline 104607 at the faithful corpus' sizes
    // (session 76; bench/experiments/sampler_crash_104607): `s3_reduce_max` (768 points) and
    // `s5_downsample` (373) have regions Halide sees as constants (a fixed-range RDom reads
    // them), so the last, shifted-in 32-lane vector of `s5_downsample` reads `s3_reduce_max`
    // at `ramp(683, 2, 32)`: an aligned load from an unaligned address, SIGSEGV at run time.
    const std::string crash = R"(sextant-schedule 1
func s9_stencil_2d root
  stage 0 loops x:split32 y:split16 vector 16 unroll 1 parallel 1
func s1_input_boundary inline
func constant_exterior at s9_stencil_2d 0
  stage 0 loops x:inner y:split6 vector 16 unroll 2 parallel 0
func repeat_edge inline
func s1_input_boundary_guard inline
func s8_pointwise root
  stage 0 loops x:inner vector 64 unroll 1 parallel 0
func s6_reduce_max root
  stage 0 loops x:inner vector 32 unroll 1 parallel 0
  stage 1 loops s6_reduce_max_r$x:outer x:split1024 vector 32 unroll 1 parallel 1
func s7_histogram root
  stage 0 loops x:inner vector 16 unroll 1 parallel 0
  stage 1 loops s7_histogram_r$x:inner vector 1 unroll 1 parallel 0
func s5_downsample root
  stage 0 loops x:inner vector 32 unroll 1 parallel 0
func s4_stencil_1d inline
func s3_reduce_max root
  stage 0 loops x:inner vector 32 unroll 1 parallel 0
  stage 1 loops s3_reduce_max_r$x:middle x:split128 vector 32 unroll 1 parallel 1
func s2_stencil_1d root
  stage 0 loops x:split128 y:inner vector 32 unroll 2 parallel 1
func s0_input_boundary inline
func mirror_image inline
func s0_input_boundary_guard inline)";
    const PipelineDag dag = faithful_dag(104607);
    auto id = [&](const std::string &name) {
        for (const FuncNode &f : dag.funcs)
            if (f.name == name) return f.id;
        FAIL("no Func " << name);
        return -1;
    };
    CHECK(dag.funcs[size_t(id("s3_reduce_max"))].fixed_region);
    CHECK(dag.funcs[size_t(id("s5_downsample"))].fixed_region);
    CHECK(!dag.funcs[size_t(id("s2_stencil_1d"))].fixed_region); // sized by the output's rows
    CHECK(!dag.funcs[size_t(id("s9_stencil_2d"))].fixed_region); // the output
    const SearchSpace space(dag);
    try {
        space.replay(crash);
        FAIL("the crashing schedule was accepted");
    } catch (const UserError &e) {
        CHECK_THAT(e.what(), Catch::Contains(": Func 's3_reduce_max' at root is read by "
                                             "'s5_downsample' with strided vector loads"));
    }
    // Unvectorized (373 points: no width divides it), no load is a vector: accepted.
    const std::string scalar =
        edit(crash, "(func s5_downsample root\n  stage 0 loops x:inner) vector 32", "$1 vector 1");
    REQUIRE_NOTHROW(space.replay(scalar));
    // The search offers neither: every candidate of a greedy and a beam search replays.
    char dir[] = "/tmp/sextant-replay-XXXXXX";
    REQUIRE(mkdtemp(dir));
    rp::RandomPipelineOptions o;
    o.min_extent = 256;
    o.max_input_points = 4194304;
    o.max_work = 3e8;
    rp::RandomPipeline p = rp::make_random_pipeline(104607, o);
    Params params;
    params.search.beam_size = 8;
    params.search.num_passes = 1;
    params.search.seed = 104607;
    params.cost_model = "analytical";
    params.candidates_dir = dir;
    params.num_candidates = 5;
    MachineInfo m;
    m.parallelism = 2;
    m.last_level_cache_bytes = 33554432; // the sampler's, on the EPYC VM
    autoschedule(output_functions(p), rp::default_run_target(), m, params);
    const std::string path = std::string(dir) + "/candidates.jsonl";
    std::ifstream in(path);
    int candidates = 0;
    for (std::string line; std::getline(in, line); candidates++) {
        const std::string text = nlohmann::json::parse(line).at("schedule_text").get<std::string>();
        INFO(text);
        CHECK_NOTHROW(space.replay(text));
    }
    CHECK(candidates >= 2);
    std::remove(path.c_str());
    rmdir(dir);
}

TEST_CASE("a buffer whose hull grows past Halide's size limit at its last iterations is too large",
          "[replay]") {
    // A dropout candidate of the sampler for random pipeline 104215 at the faithful corpus'
    // sizes (session 74): `mirror_interior$1` per plane of `s11_pointwise`, read there directly
    // and through a transpose, so its hull grows across the planes. At the middle iteration,
    // where the model prices it, it is 1.7 GB; at the last ones Halide asked for 2.3-3.1 GB and
    // refused them at run time ("Total allocation for buffer mirror_interior$1 is 2287520000,
    // which exceeds the maximum size of 2147483647"). The search must count it too large.
    const std::string text = R"(sextant-schedule 1
func s11_pointwise root
  stage 0 loops x:inner y:split2 z:outer w:outer vector 8 unroll 2 parallel 2 unroll_outer
func s10_pointwise inline
func s9_transpose at s11_pointwise 2
  stage 0 loops x:inner y:outer z:inner w:inner vector 16 unroll 2 parallel 0
func s4_fan_in at s11_pointwise 2
  stage 0 loops x:inner y:inner z:inner w:inner vector 1 unroll 1 parallel 0
func s3_pointwise at s11_pointwise 2
  stage 0 loops x:inner y:outer z:inner w:split2 vector 1 unroll 1 parallel 0
func s1_input_boundary at s11_pointwise 2
  stage 0 loops x:inner y:inner z:outer w:outer vector 16 unroll 2 parallel 0
func mirror_interior$1 at s11_pointwise 0
  stage 0 loops x:inner y:outer z:outer w:outer vector 8 unroll 1 parallel 0
func s1_input_boundary_guard inline
func s8_lookup root
  stage 0 loops x:inner vector 32 unroll 2 parallel 0
func s7_scan root
  stage 0 loops x:split256 vector 16 unroll 1 parallel 0
  stage 1 loops s7_scan_r$x:inner vector 1 unroll 1 parallel 0
func s6_fan_in at s7_scan 0
  stage 0 loops x:split128 vector 32 unroll 2 parallel 0
func s5_upsample at s7_scan 0
  stage 0 loops x:inner vector 32 unroll 2 parallel 0
func s2_cast root
  stage 0 loops x:inner vector 32 unroll 2 parallel 0
func s0_input_boundary root
  stage 0 loops x:split1024 vector 64 unroll 1 parallel 0
func mirror_interior root
  stage 0 loops x:split256 vector 32 unroll 2 parallel 0
func s0_input_boundary_guard root
  stage 0 loops x:split128 vector 32 unroll 1 parallel 0)";
    const PipelineDag dag = faithful_dag(104215);
    const SearchSpace space(dag);
    const Decisions d = parse_schedule_text(dag, text);
    StatePtr s = space.initial_state();
    for (int f : space.order())
        s = space.make_child(*s, d[size_t(f)]);
    int mirror = -1;
    for (const FuncNode &f : dag.funcs)
        if (f.name == "mirror_interior$1") mirror = f.id;
    REQUIRE(mirror >= 0);
    const FuncNest &n = *s->nests[size_t(mirror)];
    const double limit = double(dag.machine.max_buffer_bytes), bytes = 8; // float64
    CHECK(n.alloc_points * bytes < limit);     // the middle iteration: priced
    CHECK(n.max_alloc_points * bytes > limit); // the last: what Halide refuses
    CHECK(s->buffer_too_large);
    CHECK(s->largest_buffer_func == mirror);
    // Replayed as a ScheduleText, the same (the plugin then stops with a user error).
    const StatePtr r = space.replay(text);
    CHECK(r->buffer_too_large);
    CHECK(r->largest_buffer_func == mirror);
}

TEST_CASE("a schedule's partial states are states the search makes on its way to it", "[replay]") {
    // The training export's prefixes (costmodel/TrainingReplay.h): after k Funcs of the
    // decision order, each decided Func keeps the placement and loop nest it has in the whole
    // schedule, the rest are undecided, and one of the search's children of the k-th state
    // places the next Func as the schedule does.
    int states = 0;
    for (uint64_t seed : {3, 11, 17}) {
        PipelineDag dag;
        const std::vector<std::string> texts = candidate_texts(seed, &dag);
        REQUIRE(!texts.empty());
        SearchSpace space(dag);
        const std::vector<int> &order = space.order();
        const StatePtr whole = space.replay(texts.front());
        INFO("random pipeline " << seed << ":\n" << texts.front());
        for (int k = 0; k < int(order.size()); k++) {
            const StatePtr p = prefix_state(space, *whole, k);
            CHECK(p->num_decided == k);
            for (size_t i = 0; i < order.size(); i++) {
                const int f = order[i];
                if (int(i) < k) {
                    CHECK(p->decisions[size_t(f)] == whole->decisions[size_t(f)]);
                    REQUIRE(bool(p->nests[size_t(f)]) == bool(whole->nests[size_t(f)]));
                    if (p->nests[size_t(f)]) {
                        CHECK(p->nests[size_t(f)]->region == whole->nests[size_t(f)]->region);
                        CHECK(p->nests[size_t(f)]->realizations ==
                              whole->nests[size_t(f)]->realizations);
                    }
                } else {
                    CHECK(p->decisions[size_t(f)].placement == Placement::Undecided);
                    CHECK(!p->nests[size_t(f)]);
                }
            }
            std::vector<StatePtr> kids;
            space.children(*p, SearchSpaceOptions{}, &kids);
            const FuncSched &next = whole->decisions[size_t(order[size_t(k)])];
            bool placed_alike = false;
            for (const StatePtr &c : kids)
                placed_alike |=
                    placement_key(c->decisions[size_t(order[size_t(k)])]) == placement_key(next);
            CHECK(placed_alike);
            states++;
        }
    }
    CHECK(states >= 6);
}
