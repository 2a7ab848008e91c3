// sextant-sample: makes measured training data. For each random pipeline seed in [from, to) it
// makes up to K distinct schedules (beam search, greedy, greedy with dropout), benchmarks each
// one in its own child process (timed runs never overlap), and stores the runtime (or the
// error) in a SampleStore. Resumable: schedules already stored are not measured again. Also exports
// the store as training JSON lines and exports/imports the store itself. See docs/SAMPLING.md.
#include "costmodel/WeightsFile.h"
#include "dag/PipelineDag.h"
#include "plugin/Params.h"
#include "sampler/Regret.h"
#include "sampler/Remeasure.h"
#include "sampler/SampleStore.h"
#include "sampler/Sampler.h"
#include "sampler/TrainingExport.h"
#include "support/Args.h"
#include "support/Errors.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

namespace {

using namespace sextant;

const char *kUsage =
    "usage: sextant-sample --db FILE [--from A --to B] [options]\n"
    "  --from A --to B        random pipeline seeds [A, B) to sample\n"
    "  --per-pipeline K       distinct schedules per pipeline (10)\n"
    "  --repeats R            at most R timed runs per schedule, after one warm-up (10); a\n"
    "                         timed process stops earlier when its best and third-best runs\n"
    "                         agree within 3% (docs/SAMPLING.md)\n"
    "  --processes K          time each schedule in K fresh processes, one after another,\n"
    "                         and store the fastest one's best run (1); the median stays the\n"
    "                         first process's\n"
    "  --run-budget S         at most S seconds of timed runs per schedule (1)\n"
    "  --busy-threshold F     re-time a schedule whose timed process waited for a CPU more than\n"
    "                         this fraction of its timed span (0.1), at most --busy-retries\n"
    "                         times (2)\n"
    "  --pause-beside-timing FILE\n"
    "                         process groups listed in FILE (one id a line, read at each\n"
    "                         timing) are stopped while a schedule is timed, as the\n"
    "                         sampler's own compiles are: other work can share the machine\n"
    "                         without touching the labels (scripts/beside_sampler.sh)\n"
    "  --work-dir DIR         where compiled schedules go meanwhile (default: a new directory\n"
    "                         under $TMPDIR or /tmp, removed at the end)\n"
    "  --timeout S            seconds per benchmark (compile + runs) before it is killed (60)\n"
    "  --search-timeout S     seconds for one pipeline's candidate searches (300)\n"
    "  --jobs J               benchmark children at once (1): their JIT compiles overlap, but\n"
    "                         while one is timed all others are stopped (SIGSTOP)\n"
    "  --threads T            Halide threads in each benchmark (default: --parallelism)\n"
    "  --parallelism P        cores the schedules target (default: all online CPUs)\n"
    "  --llc-bytes N          the last-level cache the workloads record and the schedules\n"
    "                         target (default: the largest cache sysfs reports; set it on a\n"
    "                         machine whose sysfs reports none, to its real size)\n"
    "  --beam B --passes P    beam search of the first candidate (32, 3)\n"
    "  --weights FILE         make the candidates with the learned model of FILE instead of\n"
    "                         the analytical one (sources 'learned:...'); with a larger\n"
    "                         --per-pipeline, a second pass over sampled seeds adds the\n"
    "                         schedules that model picks (on-policy data); FILE may list\n"
    "                         several weights separated by commas (a cautious ensemble;\n"
    "                         docs/COSTMODEL.md)\n"
    "  --final-beam K         right after the first search's pick, up to K more schedules of\n"
    "                         its last beam, then a beam-8 search's pick and K of its beam\n"
    "                         (sources 'final:B:rank'; on-policy data with --weights)\n"
    "  --neighbours N         right after the first search's pick, N tweaks and N mutations\n"
    "                         of it (sources 'near-tweak:...', 'near-mutate:...'): its\n"
    "                         neighbourhood, which the learned mode can rank\n"
    "                         (SEXTANT_LEARNED_NEIGHBOURS); count them in --per-pipeline\n"
    "  --max-stages N --max-work W --min-extent E --max-extent E --max-input-points N\n"
    "                         random pipeline generator options (random_pipelines/Options.h);\n"
    "                         docs/SAMPLING.md has the sizes the faithful corpus uses\n"
    "  --export FILE          write the whole store as JSON lines (after sampling)\n"
    "  --import FILE          add the records of an exported file (before sampling);\n"
    "                         repeat it for several files\n"
    "  --export-training FILE re-featurize every successful record into trainer JSON lines\n"
    "                         (random pipelines are rebuilt from their seed, autotuning runs'\n"
    "                         pipelines by their generator with this build's plugin)\n"
    "  --export-prefixes N    with --export-training: also N partial states of each random\n"
    "                         pipeline's schedules, ranked by the whole schedule's runtime\n"
    "                         (docs/COSTMODEL.md, \"Partial states\")\n"
    "  --generators-dir DIR   where an autotuning run's generator is, by file name, when the\n"
    "                         path it recorded does not exist (another checkout's build)\n"
    "  --remeasure F --remeasure-out FILE [--rounds R] [--seed S]\n"
    "                         measure every successful record of a random fraction F of the\n"
    "                         workloads again, R times (2) in fresh processes, into FILE (JSON\n"
    "                         lines; scripts/noise_ceiling.py tabulates it)\n"
    "  --regret WEIGHTS --regret-out FILE [--rounds R]\n"
    "                         instead of sampling seeds [A, B): judge the learned model of\n"
    "                         WEIGHTS by its search's picks — each seed's analytical and learned\n"
    "                         beam picks and the fastest schedule stored in --db for it, timed\n"
    "                         interleaved over R rounds (3) of fresh processes — into FILE (JSON\n"
    "                         lines, resumable; scripts/regret_report.py summarizes it).\n"
    "                         --regret-learned-search N|beam: the learned pick is the one it\n"
    "                         ranks first among N analytical candidates (4, the plugin's\n"
    "                         default) or its own beam search's pick;\n"
    "                         --regret-learned-margin P: ranking those, it leaves the beam\n"
    "                         pick only for one it prices P% cheaper (the plugin's default 5)\n"
    "                         --regret-half selection|test: the even or the odd seeds only\n"
    "                         (regret_report.py's halves: choose on one, ship on the other).\n"
    "                         WEIGHTS may be an ensemble, as for --weights ('analytical' names\n"
    "                         the analytical model as a member). The judge runs alone: it\n"
    "                         refuses to start while other processes use over 20% of the\n"
    "                         CPUs (measured over 2 s), unless --busy-ok\n"
    "  --busy-ok              judge even on a busy machine (its figures are then not\n"
    "                         comparable with a quiet run's)\n"
    "  --inject KIND@N,...    test hook: make the N-th measurement of this run KIND\n"
    "                         (crash | hang | error)\n"
    "  --quiet                no per-sample progress lines\n"
    "  --verbose              let benchmark children write to stderr\n";

struct Options {
    std::string db;
    bool busy_ok = false;
    double remeasure = 0;
    RemeasureOptions remeasure_opt;
    bool have_range = false;
    SamplerOptions sampler;
    std::string export_path, export_training_path, generators_dir;
    int export_prefixes = 0;               ///< --export-prefixes
    std::vector<std::string> import_paths; ///< --import, repeatable, in order
    RegretOptions regret;                  ///< judged when regret.weights is set
    int rounds = 0;                        ///< --rounds, if given
};

/** --inject KIND@N,...: the N-th measurement of the run is made to fail as KIND. */
void parse_inject(const std::string &spec, std::map<int64_t, std::string> *inject) {
    size_t pos = 0;
    while (pos <= spec.size()) {
        size_t comma = spec.find(',', pos);
        std::string item = spec.substr(pos, comma == std::string::npos ? comma : comma - pos);
        size_t at = item.find('@');
        std::string kind = item.substr(0, at);
        if (at == std::string::npos || (kind != "crash" && kind != "hang" && kind != "error"))
            throw ArgError("--inject: expected KIND@N with KIND crash|hang|error, got '" + item +
                           "'");
        const std::string n = item.substr(at + 1);
        char *end = nullptr;
        const long long k = std::strtoll(n.c_str(), &end, 10);
        if (n.empty() || *end) throw ArgError("--inject: '" + n + "' is not a number");
        (*inject)[int64_t(k)] = kind;
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
}

/** Checks the parsed flags and hands the shared ones (timing, seeds, search) to the regret
 * and remeasure modes. */
void finish(Options &o, bool have_from, bool have_to) {
    if (o.db.empty()) throw ArgError("--db is required");
    if (have_from != have_to) throw ArgError("--from and --to go together");
    o.have_range = have_from;
    if (o.have_range && o.sampler.to < o.sampler.from)
        throw ArgError("--to must not be less than --from");
    if (o.sampler.per_pipeline < 1) throw ArgError("--per-pipeline must be at least 1");
    if (o.sampler.timing.repeats < 1) throw ArgError("--repeats must be at least 1");
    if (o.sampler.timing.busy_retries < 0) throw ArgError("--busy-retries must not be negative");
    if (o.sampler.jobs < 1) throw ArgError("--jobs must be at least 1");
    if (o.sampler.processes < 1) throw ArgError("--processes must be at least 1");
    if (o.export_prefixes < 0) throw ArgError("--export-prefixes must not be negative");
    if (o.export_prefixes > 0 && o.export_training_path.empty())
        throw ArgError("--export-prefixes goes with --export-training");
    o.sampler.candidates.count = o.sampler.per_pipeline;
    if (o.rounds != 0) {
        if (o.rounds < 1) throw ArgError("--rounds must be at least 1");
        o.remeasure_opt.rounds = o.regret.rounds = o.rounds;
    }
    if (!o.regret.weights.empty()) {
        if (!o.have_range) throw ArgError("--regret needs --from and --to (the seeds judged)");
        if (o.regret.out_path.empty()) throw ArgError("--regret needs --regret-out");
        o.regret.from = o.sampler.from;
        o.regret.to = o.sampler.to;
        o.regret.timing = o.sampler.timing;
        o.regret.search_timeout_s = o.sampler.search_timeout_s;
        o.regret.parallelism = o.sampler.parallelism;
        o.regret.llc_bytes = o.sampler.llc_bytes;
        o.regret.search = o.sampler.candidates.first;
        o.regret.generator = o.sampler.generator;
        o.regret.quiet = o.sampler.quiet;
    }
    if (o.remeasure > 0) {
        if (o.remeasure_opt.out_path.empty()) throw ArgError("--remeasure needs --remeasure-out");
        o.remeasure_opt.fraction = o.remeasure;
        o.remeasure_opt.jobs = o.sampler.jobs;
        o.remeasure_opt.timing = o.sampler.timing;
        o.remeasure_opt.quiet = o.sampler.quiet;
    }
}

Options parse_args(int argc, char **argv) {
    Options o;
    bool have_from = false, have_to = false;
    Args args(argc, argv);
    while (args.next()) {
        const std::string &a = args.flag();
        if (a == "--db")
            o.db = args.value();
        else if (a == "--from")
            o.sampler.from = args.seed(), have_from = true;
        else if (a == "--to")
            o.sampler.to = args.seed(), have_to = true;
        else if (a == "--per-pipeline")
            o.sampler.per_pipeline = args.integer();
        else if (a == "--repeats")
            o.sampler.timing.repeats = args.integer();
        else if (a == "--processes")
            o.sampler.processes = args.integer();
        else if (a == "--run-budget")
            o.sampler.timing.run_budget_s = args.number();
        else if (a == "--busy-threshold")
            o.sampler.timing.busy_threshold = args.number();
        else if (a == "--busy-retries")
            o.sampler.timing.busy_retries = args.integer();
        else if (a == "--pause-beside-timing")
            o.sampler.timing.pause_file = args.value();
        else if (a == "--work-dir")
            o.sampler.work_dir = args.value();
        else if (a == "--timeout")
            o.sampler.timing.timeout_s = args.number();
        else if (a == "--search-timeout")
            o.sampler.search_timeout_s = args.number();
        else if (a == "--jobs")
            o.sampler.jobs = args.integer();
        else if (a == "--threads")
            o.sampler.timing.threads = args.integer();
        else if (a == "--parallelism")
            o.sampler.parallelism = args.integer();
        else if (a == "--llc-bytes")
            o.sampler.llc_bytes = args.whole(1);
        else if (a == "--beam")
            o.sampler.candidates.first.beam_size = args.integer();
        else if (a == "--passes")
            o.sampler.candidates.first.num_passes = args.integer();
        else if (a == "--weights")
            o.sampler.weights = args.value();
        else if (a == "--final-beam")
            o.sampler.candidates.final_beam = args.integer(0);
        else if (a == "--neighbours")
            o.sampler.candidates.neighbours = args.integer(0);
        else if (a == "--max-stages")
            o.sampler.generator.max_stages = args.integer();
        else if (a == "--max-work")
            o.sampler.generator.max_work = args.number();
        else if (a == "--max-extent")
            o.sampler.generator.max_extent = args.integer();
        else if (a == "--min-extent")
            o.sampler.generator.min_extent = args.integer();
        else if (a == "--max-input-points")
            o.sampler.generator.max_input_points = int64_t(args.number());
        else if (a == "--export")
            o.export_path = args.value();
        else if (a == "--import")
            o.import_paths.push_back(args.value());
        else if (a == "--export-training")
            o.export_training_path = args.value();
        else if (a == "--export-prefixes")
            o.export_prefixes = args.integer();
        else if (a == "--generators-dir")
            o.generators_dir = args.value();
        else if (a == "--remeasure")
            o.remeasure = args.number();
        else if (a == "--remeasure-out")
            o.remeasure_opt.out_path = args.value();
        else if (a == "--rounds")
            o.rounds = args.integer();
        else if (a == "--regret")
            o.regret.weights = args.value();
        else if (a == "--regret-out")
            o.regret.out_path = args.value();
        else if (a == "--regret-learned-search") {
            const std::string v = args.value();
            const std::optional<int> n = parse_learned_search(v);
            if (!n)
                throw ArgError("--regret-learned-search: '" + v +
                               "' is neither 'beam' nor a count of candidates (1-1000)");
            o.regret.learned_candidates = *n;
        } else if (a == "--regret-learned-margin") {
            const int percent = args.integer(0);
            if (percent > 100) throw ArgError("--regret-learned-margin: at most 100 (percent)");
            o.regret.learned_margin = percent / 100.0;
        } else if (a == "--regret-half") {
            const std::string h = args.value();
            if (h != "selection" && h != "test")
                throw ArgError(
                    "--regret-half: 'selection' (even seeds) or 'test' (odd seeds), not '" + h +
                    "'");
            o.regret.half = h == "selection" ? 1 : 2;
        } else if (a == "--busy-ok")
            o.busy_ok = true;
        else if (a == "--seed")
            o.remeasure_opt.seed = args.seed();
        else if (a == "--quiet")
            o.sampler.quiet = true;
        else if (a == "--verbose")
            o.sampler.verbose = true;
        else if (a == "--inject")
            parse_inject(args.value(), &o.sampler.inject);
        else if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else {
            args.unknown();
        }
    }
    finish(o, have_from, have_to);
    return o;
}

int sample(SampleStore &store, const Options &o) {
    // Without sysfs cache sizes the workloads record MachineInfo's default cache, and a
    // store of this machine made when it reported one holds another machine kind (session
    // 72's shard: llc=16 MiB beside eleven at 32 MiB, refused together by --export-training).
    if (host_caches().empty() && o.sampler.llc_bytes <= 0)
        std::fprintf(stderr,
                     "sextant-sample: warning: this machine reports no cache sizes "
                     "(/sys/devices/system/cpu/cpu0/cache); its workloads record a %lld-byte "
                     "last-level cache and will not train together with samples of this "
                     "machine recorded with its real size (--llc-bytes N sets it)\n",
                     (long long)MachineInfo{}.last_level_cache_bytes);
    SamplerSummary r = run_sampler(store, o.sampler);
    std::printf("measured %lld new records (%lld failed), skipped %lld already stored, "
                "%lld pipelines failed, in %.1f s: %.0f samples/hour\n",
                (long long)r.measured, (long long)r.failed, (long long)r.skipped,
                (long long)r.pipelines_failed, r.seconds, r.per_hour());
    std::printf("time: candidate search %.1f s, benchmark children %.1f s (compile %.1f s, "
                "timed processes %.1f s, %lld busy retries)%s\n",
                r.search_s, r.measure_s, r.compile_s, r.time_s, (long long)r.busy_retries,
                o.sampler.jobs > 1 ? ", summed over overlapping children" : "");
    StoreCounts c = store.counts();
    std::printf("store %s: %lld workloads, %lld records (%lld failed)\n", store.path().c_str(),
                (long long)c.workloads, (long long)c.records, (long long)c.failed);
    return 0;
}

/** Reads each weights file of `list` (comma-separated, 'analytical' names no file), so that a
 * missing or corrupt one is the tool's error before any work, not every pipeline's. */
void check_weights(const std::string &list) {
    for (const std::string &w : split_list(list)) {
        std::error_code ec;
        if (w == "analytical" || std::filesystem::is_directory(w, ec)) continue; // the plugin's
        nlohmann::json manifest;
        std::vector<NamedTensor> tensors;
        read_weights_file(w, manifest, tensors);
    }
}

/** Share of all CPUs' time spent outside idle and iowait over `seconds` (/proc/stat). */
double cpu_busy_fraction(double seconds) {
    auto read = [] {
        std::ifstream f("/proc/stat");
        std::string cpu;
        f >> cpu;
        std::vector<double> v;
        for (double x; v.size() < 8 && f >> x;)
            v.push_back(x);
        double total = 0;
        for (double x : v)
            total += x;
        const double idle = v.size() > 4 ? v[3] + v[4] : 0;
        return std::make_pair(total, idle);
    };
    const auto a = read();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const auto b = read();
    const double total = b.first - a.first;
    return total > 0 ? 1.0 - (b.second - a.second) / total : 0.0;
}

/** Does what the options ask, in this order: import, judge or sample, remeasure, export. */
void run(const Options &o) {
    check_weights(o.sampler.weights);
    check_weights(o.regret.weights);
    SampleStore store(o.db);
    for (const std::string &path : o.import_paths) {
        int64_t n = store.import_jsonl(path);
        std::printf("imported %lld new records from %s\n", (long long)n, path.c_str());
    }
    if (!o.regret.weights.empty()) {
        const double busy = cpu_busy_fraction(2.0);
        if (busy > 0.2 && !o.busy_ok)
            throw UserError("the machine is busy (" + std::to_string(int(busy * 100)) +
                            "% of the CPUs' time used over 2 s): the regret judge times schedules "
                            "and must run alone. Wait for the other work to end, or pass "
                            "--busy-ok to judge anyway (the figures are then not comparable)");
        if (busy > 0.2)
            std::fprintf(stderr,
                         "warning: judging on a busy machine (%d%% of the CPUs' time "
                         "used over 2 s)\n",
                         int(busy * 100));
        RegretSummary r = run_regret(o.regret, &store);
        std::printf("judged %lld pipelines (%lld failed), skipped %lld already judged, in "
                    "%.1f s, into %s\n",
                    (long long)r.pipelines, (long long)r.failed, (long long)r.skipped, r.seconds,
                    o.regret.out_path.c_str());
    } else if (o.have_range) {
        sample(store, o);
    }
    if (o.remeasure > 0) {
        RemeasureSummary r = remeasure_sample_set(store, o.remeasure_opt);
        std::printf("remeasured %lld records (%lld failed) of %lld workloads, %d rounds each, "
                    "in %.1f s, into %s\n",
                    (long long)r.records, (long long)r.failed, (long long)r.workloads,
                    o.remeasure_opt.rounds, r.seconds, o.remeasure_opt.out_path.c_str());
    }
    if (!o.export_path.empty()) {
        int64_t n = store.export_jsonl(o.export_path);
        std::printf("exported %lld records to %s\n", (long long)n, o.export_path.c_str());
    }
    if (!o.export_training_path.empty()) {
        TrainingExportStats s =
            export_training(store, o.export_training_path, o.generators_dir, o.export_prefixes);
        for (const std::string &w : s.warnings)
            std::fprintf(stderr, "warning: %s\n", w.c_str());
        std::printf("exported %lld training samples to %s (of which %lld timed out, with "
                    "censored runtimes; %lld failed records left out, %lld records and "
                    "%lld workloads could not be re-featurized)\n",
                    (long long)s.samples, o.export_training_path.c_str(),
                    (long long)s.censored_records, (long long)s.failed_records,
                    (long long)s.skipped_records, (long long)s.skipped_workloads);
    }
}

} // namespace

int main(int argc, char **argv) {
    const Options o = parse_command_line("sextant-sample", kUsage, parse_args, argc, argv);
    return run_tool("sextant-sample", [&] {
        run(o);
        return 0;
    });
}
