// sextant-random-pipeline: command-line front end of the random pipeline generator.
//   --seed N --describe        print the plan (stages, kinds, types, sizes, consumers)
//   --seed N --run [--repeats R] JIT-compile with the default schedule, run, print times
//   --coverage FROM TO         per-kind share of pipelines over seeds [FROM, TO) (plan only)
// Options: --max-stages N --min-stages N --max-outputs N --max-work OPS --max-extent N
#include "random_pipelines/Planner.h"
#include "random_pipelines/RandomPipeline.h"
#include "support/Args.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace sextant::random_pipelines;

namespace {

const char *kUsage =
    "usage: sextant-random-pipeline [--seed N] (--describe | --run [--repeats R] | --coverage "
    "FROM TO)\n"
    "       [--min-stages N] [--max-stages N] [--max-outputs N] [--max-work OPS] "
    "[--max-extent N]\n";
int coverage(uint64_t from, uint64_t to, const RandomPipelineOptions &opts) {
    const int n_kinds = int(StageKind::Count);
    std::vector<uint64_t> pipelines_with(size_t(n_kinds), 0), stage_count(size_t(n_kinds), 0);
    double stages = 0, outputs = 0, work = 0;
    uint64_t n = to > from ? to - from : 0;
    for (uint64_t seed = from; seed < to; seed++) {
        PipelineSpec spec = plan_random_pipeline(seed, opts);
        std::vector<bool> seen(size_t(n_kinds), false);
        for (const StageSpec &s : spec.stages) {
            seen[size_t(s.kind)] = true;
            stage_count[size_t(s.kind)]++;
        }
        for (int k = 0; k < n_kinds; k++)
            pipelines_with[size_t(k)] += seen[size_t(k)];
        stages += double(spec.stages.size());
        outputs += double(spec.outputs.size());
        work += spec.estimated_work;
    }
    std::printf("coverage over seeds [%llu, %llu): %llu pipelines, %.2f stages, %.2f outputs, %.3g "
                "est. ops on average\n",
                (unsigned long long)from, (unsigned long long)to, (unsigned long long)n,
                stages / double(n ? n : 1), outputs / double(n ? n : 1), work / double(n ? n : 1));
    std::printf("| kind | pipelines with it | %% of pipelines | stages |\n|---|---:|---:|---:|\n");
    for (int k = 0; k < n_kinds; k++) {
        std::printf("| %s | %llu | %.1f%% | %llu |\n", kind_name(StageKind(k)),
                    (unsigned long long)pipelines_with[size_t(k)],
                    100.0 * double(pipelines_with[size_t(k)]) / double(n ? n : 1),
                    (unsigned long long)stage_count[size_t(k)]);
    }
    return 0;
}

struct ToolOptions {
    uint64_t seed = 0, from = 0, to = 0, repeats = 3;
    bool describe = false, run = false, coverage = false;
    RandomPipelineOptions generator;
};

/** The command line; throws ArgError. */
ToolOptions parse_args(int argc, char **argv) {
    ToolOptions o;
    RandomPipelineOptions &g = o.generator;
    sextant::Args args(argc, argv);
    while (args.next()) {
        const std::string &a = args.flag();
        if (a == "--seed")
            o.seed = args.seed();
        else if (a == "--describe")
            o.describe = true;
        else if (a == "--run")
            o.run = true;
        else if (a == "--repeats")
            o.repeats = args.seed();
        else if (a == "--coverage") {
            o.coverage = true;
            o.from = args.seed();
            o.to = args.seed();
        } else if (a == "--min-stages")
            g.min_stages = args.integer(0);
        else if (a == "--max-stages")
            g.max_stages = args.integer(0);
        else if (a == "--max-outputs")
            g.max_outputs = args.integer(0);
        else if (a == "--max-work")
            g.max_work = args.number(0);
        else if (a == "--max-extent")
            g.max_extent = args.integer(0);
        else if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else
            args.unknown();
    }
    if (!o.describe && !o.run && !o.coverage) throw sextant::ArgError("nothing to do");
    return o;
}

/** --describe and --run of one seed. */
int build_and_run(const ToolOptions &o) {
    auto t0 = std::chrono::steady_clock::now();
    RandomPipeline rp = make_random_pipeline(o.seed, o.generator);
    auto t1 = std::chrono::steady_clock::now();
    if (o.describe) std::fputs(describe(rp.spec).c_str(), stdout);
    if (!o.run) return 0;
    RunTimings t;
    std::vector<Halide::Buffer<>> outs =
        run_random_pipeline(rp, default_run_target(), &t, int(o.repeats));
    double build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    std::printf("seed %llu: build %.2f ms, compile %.2f ms, run %.3f ms (best of %llu), "
                "estimated work %.3g ops\n",
                (unsigned long long)o.seed, build_ms, t.compile_ms, t.run_ms,
                (unsigned long long)o.repeats, rp.spec.estimated_work);
    for (size_t i = 0; i < outs.size(); i++) {
        std::printf("  output %zu %s checksum %016llx\n", i, rp.outputs[i].name().c_str(),
                    (unsigned long long)buffer_checksum(outs[i]));
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const ToolOptions o =
        sextant::parse_command_line("sextant-random-pipeline", kUsage, parse_args, argc, argv);
    return o.coverage ? coverage(o.from, o.to, o.generator) : build_and_run(o);
}
