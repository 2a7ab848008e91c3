// sextant-fuzz: the scheduler's reliability check. For each random pipeline seed, schedules the
// pipeline with Sextant under several dropout seeds, JIT-compiles and runs each schedule, and
// compares every output with Halide's default schedule (exact for integers, 1e-4 relative for
// floats). Each pipeline runs in a child process, so a crash is a counted failure, not the end.
//
// Usage: sextant-fuzz --from A --to B [--seeds 3] [--beam 8] [--passes 2] [--jobs 2] [--quiet]
//                     [--replay SCHEDULE.txt]   (apply a ScheduleText instead of searching)
//                     [--sliding N]  (targeted: per pipeline, up to N of the search's 32
//                                     candidates that store a Func outside its compute level)
//                     [--targeted KIND N]  (likewise for KIND: sliding, band (a three-level
//                                     split), reduction_split (a split RVar), sliding_update
//                                     (storage outside the compute level in an update's nest)
//                                     or register_tile (several loops unrolled))
//                     [--schedule-timeout S]  (per schedule: search, compile and run; 600 s)
//                     [--cost-model analytical|learned]  (the model every search uses)
//                     [--search-space K=V,...]  (SEXTANT_SEARCH_SPACE for every search, e.g.
//                                     unroll_inside=1)
//                     [--targeted any N]  (up to N of the candidates autotuning proposes:
//                                     the beam's pick, a greedy and dropout searches)
//                     [--log FILE]  (a line per finished pipeline, appended as it finishes)
//                     [--unguarded-inputs]  (pipelines whose repeat-edge, constant and clamp
//                                     input boundaries read the input unclamped)
//                     [--asm-check]  (also compile each schedule to assembly and fail it if an
//                                     aligned vector move reaches a stack slot the function's
//                                     frame does not align: docs/SEARCH.md, "Stack alignment")
//        sextant-fuzz --scan-assembly FILE.s...  (that check alone, on assembly files; exit 1
//                                     if any hazard; scripts/asm_hunt.sh runs it on the bench)
#include "measure/Runner.h"
#include "plugin/Autoscheduler.h"
#include "random_pipelines/RandomPipeline.h"
#include "support/Args.h"
#include "support/Errors.h"
#include "tools/AssemblyCheck.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace rp = sextant::random_pipelines;

namespace {

struct Options {
    uint64_t from = 0, to = 10;
    int seeds = 3;
    int beam = 8;
    int passes = 2;
    int jobs = 2;
    bool quiet = false;
    bool verbose = false; // print every schedule before running it
    std::string replay;   // a ScheduleText to apply instead of searching
    /** Targeted mode: per pipeline, the schedules among the search's candidates that store a
     * Func further out than they compute it (sliding windows), at most this many; 0 = off. */
    int sliding = 0;
    /** What the targeted mode looks for in a candidate's ScheduleText. */
    std::string kind = "sliding";
    /** Seconds one schedule may take (search, compile, run) before it is a counted timeout; a
     * hang in LLVM would otherwise stall the whole queue. <= 0: no limit. */
    double schedule_timeout_s = 600;
    /** The cost model of every search ("" = the plugin's default). */
    std::string cost_model;
    /** What every search offers: SEXTANT_SEARCH_SPACE's value as the plugin's Params::parse
     * reads it (its `search.space` and `search_space`). */
    sextant::Params space = sextant::Params::parse({});
    /** Scan each schedule's assembly for misaligned aligned stack moves. */
    bool asm_check = false;
    /** If set, one line per finished pipeline is appended here as it finishes ("seed N
     * correct C failed F skipped S"), so a long run that is stopped keeps its counts. */
    std::string log;
    /** The random pipelines' options: the defaults, or --unguarded-inputs. */
    rp::RandomPipelineOptions generator;
};

/** Whether a candidate's ScheduleText uses the construct the targeted mode looks for. */
bool uses_construct(const std::string &text, const std::string &kind) {
    if (kind == "any") return true; // every candidate, as autotuning proposes them
    if (kind == "sliding") return text.find(" store ") != std::string::npos;
    if (kind == "band") return std::regex_search(text, std::regex(":split[0-9]+/"));
    // RVar names carry a '$' (Halide's "r$x"); pure vars do not.
    if (kind == "reduction_split") return std::regex_search(text, std::regex("\\$[a-z0-9]+:split"));
    // Storage outside the compute level inside a consumer's update stage.
    if (kind == "sliding_update")
        return std::regex_search(text, std::regex(" update [0-9]+ store "));
    // Two or more loops unrolled outside the vector loop.
    if (kind == "register_tile") return std::regex_search(text, std::regex("unroll_outer [0-9]+"));
    // A short loop unrolled inside the vectors.
    if (kind == "unroll_inside") return text.find(" unroll_inside ") != std::string::npos;
    throw std::runtime_error("unknown construct '" + kind +
                             "' (any, sliding, band, reduction_split, sliding_update, "
                             "register_tile, unroll_inside)");
}

double load_float(const uint8_t *p, int bits) {
    return bits == 64 ? *(const double *)p : double(*(const float *)p);
}

/** An integer element of type `t` (8 to 64 bits, signed or not), widened for printing. */
long long load_int(const uint8_t *p, const Halide::Type &t) {
    int64_t v = 0;
    std::memcpy(&v, p, size_t(t.bytes()));
    const int bits = t.bits();
    if (bits < 64 && t.is_int() && (v >> (bits - 1)) & 1) v -= int64_t(1) << bits;
    return (long long)v;
}

/** Compares two outputs; returns an empty string if they agree. Integers must match exactly;
 * floats within 1e-4 relative to the larger of the element and the output's largest
 * magnitude (schedules may contract a*b+c into fma differently, and long float reductions with
 * cancellation amplify that by the terms' magnitude, not the result's). */
std::string compare(const Halide::Buffer<> &want, const Halide::Buffer<> &got) {
    if (want.number_of_elements() != got.number_of_elements()) return "different sizes";
    Halide::Type t = want.type();
    size_t n = want.number_of_elements();
    double scale = 1.0;
    if (t.is_float()) {
        for (size_t i = 0; i < n; i++) {
            double a = load_float((const uint8_t *)want.data() + i * t.bytes(), t.bits());
            if (std::isfinite(a)) scale = std::max(scale, std::fabs(a));
        }
    }
    for (size_t i = 0; i < n; i++) {
        double a, b;
        const uint8_t *pa = (const uint8_t *)want.data() + i * t.bytes();
        const uint8_t *pb = (const uint8_t *)got.data() + i * t.bytes();
        if (t.is_float()) {
            a = load_float(pa, t.bits());
            b = load_float(pb, t.bits());
            if (std::isnan(a) && std::isnan(b)) continue;
            if (std::fabs(a - b) <= 1e-4 * scale) continue;
            std::ostringstream o;
            o << "float mismatch at element " << i << ": " << a << " vs " << b << " (scale "
              << scale << ")";
            return o.str();
        }
        if (std::memcmp(pa, pb, t.bytes()) != 0) {
            std::ostringstream o;
            o << "integer mismatch at element " << i << ": " << load_int(pa, t) << " vs "
              << load_int(pb, t);
            return o.str();
        }
    }
    return "";
}

/** The target every pipeline of the fuzz is compiled for, reference and schedules alike:
 * the host with `strict_float`. Without it Halide folds float algebra differently when a Func
 * is inlined than when it is stored (and LLVM contracts to FMAs in some loops only), so an
 * integer output derived from floats (a histogram bin, a lookup index) moved by one ulp
 * across a boundary differs from the reference under a correct schedule (random pipelines
 * 602, 642 and 737). Strict float changes no bounds, storage or loop code,
 * which is what the fuzz checks. */
Halide::Target fuzz_target() {
    return rp::default_run_target().with_feature(Halide::Target::StrictFloat);
}

/** Schedules, compiles and runs one schedule of pipeline `seed`, compared with `want`; prints
 * "constructs ..." then "ok <seconds>" or "fail <stage>: <reason>". */
void run_schedule(uint64_t seed, const Options &opt, const sextant::Params &params,
                  const std::vector<Halide::Buffer<>> &want) {
    Halide::Target target = fuzz_target();
    const Halide::Target schedule_target = rp::default_run_target();
    std::string stage = "schedule";
    try {
        rp::RandomPipeline p = rp::make_random_pipeline(seed, opt.generator);
        std::vector<Halide::Internal::Function> outs;
        for (Halide::Func &f : p.outputs)
            outs.push_back(f.function());
        sextant::MachineInfo m;
        m.parallelism = 2;
        auto t0 = std::chrono::steady_clock::now();
        sextant::AutoscheduleResult r = sextant::autoschedule(outs, schedule_target, m, params);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (opt.verbose)
            std::fprintf(stderr, "seed %llu:\n%s", (unsigned long long)seed,
                         (r.schedule_text + r.schedule_source).c_str());
        // The placement kinds this schedule uses, for the per-construct tally.
        std::printf("constructs");
        for (const std::string &c : r.constructs)
            std::printf(" %s", c.c_str());
        std::printf("\n");
        stage = "compile/run";
        std::vector<Halide::Buffer<>> got = rp::run_random_pipeline(p, target);
        if (opt.asm_check) {
            stage = "assembly";
            const std::string path = "/tmp/sextant-fuzz-" + std::to_string(getpid()) + ".s";
            p.pipeline.compile_to_assembly(path, p.pipeline.infer_arguments(), "fuzz", target);
            std::ifstream in(path);
            std::stringstream text;
            text << in.rdbuf();
            const std::vector<sextant::StackAlignmentHazard> bad =
                sextant::find_stack_alignment_hazards(text.str());
            // A flagged schedule's assembly is kept for reading; a clean one is removed.
            const std::string kept = "/tmp/sextant-fuzz-seed-" + std::to_string(seed) + "-" +
                                     std::to_string(getpid()) + ".s";
            if (bad.empty() || std::rename(path.c_str(), kept.c_str()) != 0)
                std::remove(path.c_str());
            if (!bad.empty()) {
                std::printf("fail stack alignment: %zu aligned vector moves to misaligned stack "
                            "slots, first in %s: %s (assembly: %s)\n",
                            bad.size(), bad[0].function.c_str(), bad[0].instruction.c_str(),
                            kept.c_str());
                if (!opt.quiet)
                    std::fprintf(stderr, "seed %llu schedule:\n%s", (unsigned long long)seed,
                                 r.schedule_text.c_str());
                std::fflush(stdout);
                return;
            }
        }
        stage = "compare";
        std::string diff;
        for (size_t o = 0; o < want.size() && diff.empty(); o++) {
            diff = compare(want[o], got[o]);
            if (!diff.empty()) diff = "output " + p.outputs[o].name() + ", " + diff;
        }
        if (!diff.empty()) {
            std::printf("fail mismatch: %s\n", diff.c_str());
            std::fflush(stdout);
            if (!opt.quiet)
                std::fprintf(stderr, "seed %llu schedule:\n%s", (unsigned long long)seed,
                             r.schedule_text.c_str());
        } else {
            std::printf("ok %.3f\n", secs);
        }
    } catch (const sextant::UserError &e) {
        std::printf("fail %s (user error): %s\n", stage.c_str(), e.what());
    } catch (const std::exception &e) {
        std::string what = e.what();
        for (char &c : what)
            if (c == '\n') c = ' ';
        std::printf("fail %s: %.200s\n", stage.c_str(), what.c_str());
    }
    std::fflush(stdout);
}

/** run_schedule in a forked child: every schedule is searched for and compiled in a process
 * that has compiled nothing but the reference, as a user's generator has not, and a crash is
 * this schedule's failure, not the pipeline's. */
void run_schedule_isolated(uint64_t seed, const Options &opt, const sextant::Params &params,
                           const std::vector<Halide::Buffer<>> &want) {
    std::fflush(stdout);
    sextant::ChildOptions co;
    co.keep_stderr = true;
    co.timeout_s = opt.schedule_timeout_s;
    sextant::RunResult res = sextant::Child::function(
                                 [&](int fd, int) {
                                     dup2(fd, 1);
                                     run_schedule(seed, opt, params, want);
                                     std::fflush(stdout);
                                 },
                                 co)
                                 .wait();
    std::fputs(res.output.c_str(), stdout);
    const bool reported = res.output.find("\nok ") != std::string::npos ||
                          res.output.find("\nfail ") != std::string::npos ||
                          res.output.rfind("fail ", 0) == 0;
    if (res.timed_out)
        std::printf("fail timeout: schedule took over %g s (search, compile or run)\n",
                    opt.schedule_timeout_s);
    else if (!res.ok() && !reported)
        std::printf("fail compile/run: %s\n", res.message.c_str());
    std::fflush(stdout);
}

/** Targeted mode: the distinct candidates of one search (SEXTANT_CANDIDATES' file) whose
 * ScheduleText uses opt.kind, at most opt.sliding. */
std::vector<std::string> sliding_candidates(uint64_t seed, const Options &opt) {
    char dir[] = "/tmp/sextant-fuzz-XXXXXX";
    if (!mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    // In a child process, like each replay after it: every child builds the pipeline from the
    // same process state, so its Funcs get the same unique names ("f$2") the texts use.
    sextant::ChildOptions co;
    co.keep_stderr = true;
    sextant::RunResult res = sextant::Child::function(
                                 [&](int, int) {
                                     rp::RandomPipeline p =
                                         rp::make_random_pipeline(seed, opt.generator);
                                     std::vector<Halide::Internal::Function> outs;
                                     for (Halide::Func &f : p.outputs)
                                         outs.push_back(f.function());
                                     sextant::Params params;
                                     params.search.beam_size = opt.beam;
                                     params.search.num_passes = opt.passes;
                                     params.candidates_dir = dir;
                                     params.num_candidates = 32;
                                     if (!opt.cost_model.empty())
                                         params.cost_model = opt.cost_model;
                                     params.search_space = opt.space.search_space;
                                     params.search.space = opt.space.search.space;
                                     // Each pipeline's dropout searches get their own seeds,
                                     // as autotuning's batches do.
                                     params.search.seed = seed;
                                     sextant::MachineInfo m;
                                     m.parallelism = 2;
                                     sextant::autoschedule(outs, fuzz_target(), m, params);
                                 },
                                 co)
                                 .wait();
    if (!res.ok()) throw std::runtime_error("the candidate search failed: " + res.message);
    std::vector<std::string> out;
    std::ifstream in(std::string(dir) + "/candidates.jsonl");
    for (std::string line; std::getline(in, line) && int(out.size()) < opt.sliding;) {
        const std::string text = nlohmann::json::parse(line).at("schedule_text").get<std::string>();
        if (uses_construct(text, opt.kind)) out.push_back(text);
    }
    std::remove((std::string(dir) + "/candidates.jsonl").c_str());
    rmdir(dir);
    return out;
}

/** Runs one pipeline seed in this (child) process: first "planned N" (the schedules that
 * follow), then run_schedule's lines for each. */
int run_one(uint64_t seed, const Options &opt) {
    Halide::Target target = fuzz_target();
    std::vector<Halide::Buffer<>> want;
    try {
        // With --unguarded-inputs, the reference is the guarded pipeline: the same values by
        // construction (a boundary condition reads its source only inside the input), and
        // Halide 14's default schedule of the unguarded form can be wrong where every stored
        // schedule agrees (seed 3687: `s10_stencil_2d` element 1, 2408 inlined against 6842
        // from the searched schedule, from every Func at root unvectorized, and from the
        // guarded pipeline).
        rp::RandomPipelineOptions reference_options = opt.generator;
        reference_options.unguarded_inputs = false;
        rp::RandomPipeline ref = rp::make_random_pipeline(seed, reference_options);
        want = rp::run_random_pipeline(ref, target);
    } catch (const std::exception &e) {
        std::printf("skip reference failed: %s\n", e.what());
        return 0;
    }
    sextant::Params params;
    params.search.beam_size = opt.beam;
    params.search.num_passes = opt.passes;
    if (!opt.cost_model.empty()) params.cost_model = opt.cost_model;
    params.search_space = opt.space.search_space;
    params.search.space = opt.space.search.space;
    if (opt.sliding == 0) {
        std::printf("planned %d\n", opt.seeds);
        std::fflush(stdout);
        for (int k = 0; k < opt.seeds; k++) {
            params.search.random_dropout = k == 0 ? 100 : 50;
            params.search.seed = uint64_t(k);
            params.schedule_file = opt.replay;
            run_schedule_isolated(seed, opt, params, want);
        }
        return 0;
    }
    std::vector<std::string> texts;
    try {
        texts = sliding_candidates(seed, opt);
    } catch (const std::exception &e) {
        std::printf("planned 1\nfail candidates: %.200s\n", e.what());
        return 0;
    }
    std::printf("planned %zu\n", texts.size());
    std::fflush(stdout);
    for (size_t i = 0; i < texts.size(); i++) {
        const std::string path = "/tmp/sextant-fuzz-" + std::to_string(getpid()) + ".txt";
        std::ofstream(path) << texts[i];
        params.schedule_file = path;
        run_schedule_isolated(seed, opt, params, want);
        std::remove(path.c_str());
    }
    return 0;
}

struct Running {
    sextant::Child child;
    uint64_t seed;
};

/** Parses the command line into `opt`; false (after printing why) if the tool should exit 2. */
bool parse_options(int argc, char **argv, Options &opt) {
    sextant::Args args(argc, argv);
    while (args.next()) {
        const std::string &a = args.flag();
        try {
            if (a == "--from")
                opt.from = args.seed();
            else if (a == "--to")
                opt.to = args.seed();
            else if (a == "--seeds")
                opt.seeds = args.integer();
            else if (a == "--beam")
                opt.beam = args.integer();
            else if (a == "--passes")
                opt.passes = args.integer();
            else if (a == "--jobs")
                opt.jobs = std::max(1, args.integer());
            else if (a == "--quiet")
                opt.quiet = true;
            else if (a == "--unguarded-inputs")
                opt.generator.unguarded_inputs = true;
            else if (a == "--replay")
                opt.replay = args.value();
            else if (a == "--verbose")
                opt.verbose = true;
            else if (a == "--cost-model")
                opt.cost_model = args.value();
            else if (a == "--search-space")
                opt.space = sextant::Params::parse({{"SEXTANT_SEARCH_SPACE", args.value()}});
            else if (a == "--asm-check")
                opt.asm_check = true;
            else if (a == "--log")
                opt.log = args.value();
            else if (a == "--schedule-timeout")
                opt.schedule_timeout_s = args.number();
            else if (a == "--sliding")
                opt.sliding = args.integer();
            else if (a == "--targeted") {
                opt.kind = args.value();
                opt.sliding = args.integer();
                uses_construct("", opt.kind); // an unknown kind is an error now, not per pipeline
            } else {
                std::fprintf(stderr,
                             "usage: sextant-fuzz --from A --to B [--seeds 3] [--beam 8] "
                             "[--passes 2] [--jobs 2] [--quiet] [--replay S.txt] [--sliding N]\n"
                             "       [--targeted any|sliding|band|reduction_split|sliding_update|"
                             "register_tile|unroll_inside N] [--schedule-timeout S]\n"
                             "       [--cost-model analytical|learned] [--search-space K=V,...] "
                             "[--asm-check] [--log FILE] [--unguarded-inputs]\n");
                return false;
            }
        } catch (const std::exception &e) { // a bad value (ArgError), an unknown construct
            std::fprintf(stderr, "sextant-fuzz: %s\n", e.what());
            return false;
        }
    }
    return true;
}

/** What the pipelines' children reported, summed. */
struct Tally {
    int scheduled = 0, correct = 0, failed = 0, skipped = 0;
    double search_secs = 0;
    std::map<std::string, int> reasons;
    std::map<std::string, std::pair<int, int>> constructs; // kind -> (correct, failed)

    /** Waits for one pipeline's child and counts its lines ("planned N", "constructs K...",
     * "ok SECS", "fail WHY", "skip"); schedules it planned but never reported are failures. */
    void reap(Running c, int planned) {
        sextant::RunResult res = c.child.wait();
        std::istringstream lines(res.output);
        std::string line;
        int seen = 0;
        std::vector<std::string> kinds; // of the schedule whose result comes next
        while (std::getline(lines, line)) {
            if (line.rfind("planned ", 0) == 0) {
                planned = std::stoi(line.substr(8));
                continue;
            }
            if (line.rfind("constructs", 0) == 0) {
                std::istringstream ks(line.substr(10));
                kinds.clear();
                for (std::string k; ks >> k;)
                    kinds.push_back(k);
                continue;
            }
            bool ok = line.rfind("ok ", 0) == 0;
            if (ok || line.rfind("fail ", 0) == 0) {
                for (const std::string &k : kinds)
                    (ok ? constructs[k].first : constructs[k].second)++;
                kinds.clear();
            }
            if (ok) {
                scheduled++;
                correct++;
                search_secs += std::stod(line.substr(3));
                seen++;
            } else if (line.rfind("fail ", 0) == 0) {
                failed++;
                seen++;
                std::string why = line.substr(5, 60);
                reasons[why]++;
                std::fprintf(stderr, "seed %llu: %s\n", (unsigned long long)c.seed, line.c_str());
            } else if (line.rfind("skip", 0) == 0) {
                skipped++;
                seen = planned;
            }
        }
        if (seen < planned) {
            int lost = planned - seen;
            failed += lost;
            std::string why = res.ok() ? "child ended early" : res.message;
            reasons[why] += lost;
            std::fprintf(stderr, "seed %llu: %s\n", (unsigned long long)c.seed, why.c_str());
        }
    }

    void print(const Options &opt) const {
        std::printf("pipelines %llu x %s %d: scheduled+compiled+correct %d, failed %d, "
                    "skipped (reference failed) %d; mean search %.2f s\n",
                    (unsigned long long)(opt.to - opt.from),
                    opt.sliding ? (opt.kind + " candidates at most").c_str() : "dropout seeds",
                    opt.sliding ? opt.sliding : opt.seeds, correct, failed, skipped,
                    correct ? search_secs / correct : 0.0);
        for (const auto &kv : reasons)
            std::printf("  %4d  %s\n", kv.second, kv.first.c_str());
        // Failures before the search finished have no schedule and count under no kind.
        std::printf("schedules using each placement kind (correct / failed):\n");
        for (const auto &kv : constructs)
            std::printf("  %-10s %5d / %d\n", kv.first.c_str(), kv.second.first, kv.second.second);
        std::printf("%d passed, %d failed\n", correct, failed);
    }
};

/** Fuzzes seeds [opt.from, opt.to), opt.jobs pipelines at a time, each in its own child
 * (sextant::Child): a crash is a counted failure. */
Tally fuzz_all(const Options &opt) {
    Tally tally;
    std::vector<Running> running;
    uint64_t next_seed = opt.from;
    auto start = std::chrono::steady_clock::now();
    uint64_t total = opt.to - opt.from;
    while (next_seed < opt.to || !running.empty()) {
        while (next_seed < opt.to && int(running.size()) < opt.jobs) {
            sextant::ChildOptions co;
            co.keep_stderr = true;
            uint64_t seed = next_seed;
            sextant::Child child = sextant::Child::function(
                [&](int fd, int) {
                    dup2(fd, 1);
                    run_one(seed, opt);
                },
                co);
            running.push_back({std::move(child), next_seed});
            next_seed++;
        }
        Running c = std::move(running.front());
        running.erase(running.begin());
        const Tally before = tally;
        const uint64_t seed = c.seed;
        tally.reap(std::move(c), opt.seeds);
        if (!opt.log.empty()) {
            std::ofstream log(opt.log, std::ios::app);
            log << "seed " << seed << " correct " << tally.correct - before.correct << " failed "
                << tally.failed - before.failed << " skipped " << tally.skipped - before.skipped
                << "\n";
        }
        uint64_t done = next_seed - opt.from - running.size();
        if (!opt.quiet) {
            double el =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::fprintf(
                stderr,
                "\r[%llu/%llu pipelines] correct %d failed %d skipped %d, %.0f s, ETA %.0f s   ",
                (unsigned long long)done, (unsigned long long)total, tally.correct, tally.failed,
                tally.skipped, el, done ? el / done * (total - done) : 0.0);
        }
    }
    if (!opt.quiet) std::fprintf(stderr, "\n");
    return tally;
}

} // namespace

/** --scan-assembly FILE...: the stack-alignment check on assembly files (a generator's
 * `-e assembly`); prints each hazard, exits 1 if any. */
int scan_assembly(int argc, char **argv) {
    int hazards = 0;
    for (int i = 2; i < argc; i++) {
        std::ifstream in(argv[i]);
        if (!in) {
            std::fprintf(stderr, "sextant-fuzz: cannot read %s\n", argv[i]);
            return 2;
        }
        std::stringstream text;
        text << in.rdbuf();
        const auto bad = sextant::find_stack_alignment_hazards(text.str());
        for (const sextant::StackAlignmentHazard &h : bad)
            std::printf("%s: %s: %s (needs %d bytes, frame gives %d)\n", argv[i],
                        h.function.c_str(), h.instruction.c_str(), h.needed, h.frame_alignment);
        std::printf("%s: %zu stack-alignment hazards\n", argv[i], bad.size());
        hazards += int(bad.size());
    }
    return hazards ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && std::string(argv[1]) == "--scan-assembly") return scan_assembly(argc, argv);
    Options opt;
    if (!parse_options(argc, argv, opt)) return 2;
    Tally tally = fuzz_all(opt);
    tally.print(opt);
    return tally.failed == 0 ? 0 : 1;
}
