// sextant-time: the one program that runs an ahead-of-time compiled Halide pipeline for the
// bench, the sampler and sextant-autotune, the way a user's program would: a shared object
// holding one pipeline function (built with -no_runtime, the Halide runtime then comes from
// --runtime or from the executable; or with its own runtime inside), loaded into a fresh
// process, every buffer sized from the pipeline's estimates (like RunGen's --estimate_all),
// inputs filled with a fixed pseudo-random stream. It knows nothing about particular pipelines:
// all it needs is in halide_filter_metadata_t. Links no Halide library (HalideRuntime.h only).
//
//   sextant-time [--runtime RT.so] [--fill NAME=LO:HI]... MODE
//   MODE: --save-ref FILE SPEC          write SPEC's outputs to FILE (in this process)
//         --check FILE [--rtol X] SPEC  compare with FILE in a child process; one JSON line,
//                                       exit 0 equal, 1 wrong output, 2 failed
//         --time [protocol options] SPEC...   the timing protocol (measure/Protocol.h): each
//                                       SPEC x variant in fresh processes, interleaved over
//                                       rounds; one JSON line per SPEC x variant
//         --time-one [rule options] SPEC  one timed process (measure/TimingLoop.h)
//   SPEC: LIB.so:FUNC
// This file: the command line and the parent modes; the in-process modes are DriverChild.cpp.
#include "measure/DriverChild.h"
#include "measure/Protocol.h"
#include "measure/TimingLoop.h"
#include "support/Args.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using namespace sextant;
using namespace sextant::driver;

namespace {

std::string self_exe() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) fail("cannot find this executable (/proc/self/exe)");
    buf[n] = 0;
    return buf;
}

struct Variant {
    std::string name = "default";
    std::map<std::string, std::string> env;
};

/** NAME or NAME:K=V,K=V */
Variant parse_variant(const std::string &s) {
    Variant v;
    size_t colon = s.find(':');
    v.name = s.substr(0, colon);
    if (colon == std::string::npos) return v;
    std::string rest = s.substr(colon + 1);
    size_t pos = 0;
    while (pos < rest.size()) {
        size_t comma = rest.find(',', pos);
        std::string kv = rest.substr(pos, comma == std::string::npos ? comma : comma - pos);
        size_t eq = kv.find('=');
        if (eq == std::string::npos) fail("--variant: expected K=V, got " + kv);
        v.env[kv.substr(0, eq)] = kv.substr(eq + 1);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return v;
}

const char *kUsage =
    "usage: sextant-time [--runtime RT.so] [--fill NAME=LO:HI]... [--exact-inputs] MODE\n"
    "  (each input is sized by its estimates grown to the region a bounds query says the\n"
    "  schedule reads, as RunGen does; --exact-inputs: the estimates only, and a read outside\n"
    "  them is an error naming the input, dimension and regions)\n"
    "  --save-ref FILE SPEC           write SPEC's outputs to FILE\n"
    "  --check FILE [--rtol X] SPEC   compare SPEC's outputs with FILE (in a child process)\n"
    "  --time [options] SPEC...       time with the protocol: fresh processes, interleaved\n"
    "      --rounds R (1) --variant NAME[:K=V,...] (repeatable; default: 'default')\n"
    "      --busy-threshold F (0.1) --busy-retries N (2) --timeout S (300) --log FILE\n"
    "      --slow-threshold F (0.08; 0 = no machine-speed check) --slow-max-wait S (30)\n"
    "  --time-one SPEC                one timed process\n"
    "  rule options (--time, --time-one): --max-runs N (20; --reps is the same)\n"
    "      --min-runs N (3) --tolerance F (0.03) --budget S (2) --min-run-time S (0)\n"
    "  SPEC: LIB.so:FUNC, or 'probe': a fixed workload (the machine-speed probe), whose\n"
    "      spread over rounds is this machine's process-to-process noise floor\n";

/** The command line. */
struct DriverOptions {
    std::string mode, file, runtime, log_path;
    std::map<std::string, Range> ranges;
    std::vector<std::string> fill_args; ///< as given, for the children
    bool exact_inputs = false;
    double rtol = 1e-4;
    StopRule rule;
    ProtocolOptions popt;
    std::vector<Variant> variants;
    std::vector<std::string> specs;
};

DriverOptions parse_driver_options(int argc, char **argv) {
    DriverOptions o;
    Args args(argc, argv);
    try {
        while (args.next()) {
            const std::string &a = args.flag();
            if (a == "--save-ref" || a == "--check" || a == "--check-one") {
                o.mode = a;
                o.file = args.value();
            } else if (a == "--time" || a == "--time-one") {
                o.mode = a;
            } else if (a == "--runtime") {
                o.runtime = args.value();
            } else if (a == "--fill") {
                std::string f = args.value();
                size_t eq = f.find('='), colon = f.rfind(':');
                if (eq == std::string::npos || colon == std::string::npos || colon < eq)
                    fail("--fill: expected NAME=LO:HI, got " + f);
                o.ranges[f.substr(0, eq)] = {std::atof(f.substr(eq + 1, colon - eq - 1).c_str()),
                                             std::atof(f.substr(colon + 1).c_str())};
                o.fill_args.push_back(f);
            } else if (a == "--exact-inputs") {
                o.exact_inputs = true;
            } else if (a == "--rtol") {
                o.rtol = args.number();
            } else if (a == "--max-runs" || a == "--reps") {
                o.rule.max_runs = std::max(1, args.integer());
            } else if (a == "--min-runs") {
                o.rule.min_runs = args.integer();
            } else if (a == "--tolerance") {
                o.rule.tolerance = args.number();
            } else if (a == "--budget") {
                o.rule.budget_s = args.number();
            } else if (a == "--min-run-time") {
                o.rule.min_run_s = args.number();
            } else if (a == "--rounds") {
                o.popt.rounds = std::max(1, args.integer());
            } else if (a == "--busy-threshold") {
                o.popt.busy_threshold = args.number();
            } else if (a == "--busy-retries") {
                o.popt.busy_retries = std::max(0, args.integer());
            } else if (a == "--slow-threshold") {
                o.popt.slow_threshold = args.number();
            } else if (a == "--slow-max-wait") {
                o.popt.slow_max_wait_s = args.number();
            } else if (a == "--timeout") {
                o.popt.timeout_s = args.number();
            } else if (a == "--variant") {
                o.variants.push_back(parse_variant(args.value()));
            } else if (a == "--log") {
                o.log_path = args.value();
            } else if (a == "-h" || a == "--help") {
                std::fputs(kUsage, stdout);
                std::exit(0);
            } else if (!a.empty() && a[0] == '-') {
                args.unknown();
            } else {
                o.specs.push_back(a);
            }
        }
    } catch (const ArgError &e) {
        fail(std::string(e.what()) + "\n" + kUsage);
    }
    if (o.mode.empty() || o.specs.empty()) fail(std::string("no mode or no pipeline\n") + kUsage);
    if (o.mode != "--time" && o.specs.size() != 1) fail(o.mode + " takes exactly one pipeline");
    return o;
}

/** This program with the options every child needs (runtime library, input fills). */
std::vector<std::string> child_command(const DriverOptions &o) {
    std::vector<std::string> cmd = {self_exe()};
    if (!o.runtime.empty()) cmd.insert(cmd.end(), {"--runtime", o.runtime});
    for (const std::string &f : o.fill_args)
        cmd.insert(cmd.end(), {"--fill", f});
    if (o.exact_inputs) cmd.push_back("--exact-inputs");
    return cmd;
}

/** --check: the pipeline checked in a fresh child (--check-one); prints one JSON line. */
int check_in_child(const DriverOptions &o) {
    std::vector<std::string> cmd = child_command(o);
    cmd.insert(cmd.end(), {"--rtol", std::to_string(o.rtol), "--check-one", o.file, o.specs[0]});
    ChildOptions co;
    co.timeout_s = o.popt.timeout_s;
    co.log_path = o.log_path;
    co.keep_stderr = o.log_path.empty();
    RunResult r = run_program(cmd, co);
    std::string line;
    for (size_t s = 0, e; s < r.output.size(); s = e + 1) {
        e = r.output.find('\n', s);
        if (e == std::string::npos) e = r.output.size();
        if (r.output[s] == '{') line = r.output.substr(s, e - s);
    }
    nlohmann::json j;
    try {
        j = line.empty() ? nlohmann::json::object() : nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception &) {
        j = nlohmann::json::object();
    }
    j["pipeline"] = o.specs[0];
    if (!r.ok() && (r.kind == FailureKind::Timeout || r.kind == FailureKind::Crash ||
                    !j.contains("failure_kind"))) {
        j["failure_kind"] = failure_kind_name(r.kind);
        j["error"] = r.message;
    }
    std::printf("%s\n", j.dump().c_str());
    std::string kind = j.value("failure_kind", std::string("other"));
    return kind == "ok" ? 0 : kind == "wrong_output" ? kExitWrongOutput : kExitFailed;
}

/** The stopping rule as command-line flags for a child (exactly: %.17g round-trips). */
std::vector<std::string> rule_flags(const StopRule &r) {
    auto num = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", x);
        return std::string(buf);
    };
    return {"--max-runs",     std::to_string(r.max_runs),
            "--min-runs",     std::to_string(r.min_runs),
            "--tolerance",    num(r.tolerance),
            "--budget",       num(r.budget_s),
            "--min-run-time", num(r.min_run_s)};
}

/** --time: every pipeline x variant timed in fresh children (--time-one), interleaved over
 * rounds; prints one JSON line per subject. */
int time_interleaved(const DriverOptions &o) {
    std::vector<Variant> variants = o.variants;
    if (variants.empty()) variants.push_back(Variant());
    std::vector<Subject> subjects;
    std::vector<std::pair<std::string, std::string>> keys; // (spec, variant)
    for (const std::string &spec : o.specs) {
        for (const Variant &v : variants) {
            Subject s;
            s.label = spec + " [" + v.name + "]";
            s.argv = child_command(o);
            for (const std::string &f : rule_flags(o.rule))
                s.argv.push_back(f);
            s.argv.insert(s.argv.end(), {"--time-one", spec});
            s.env = v.env;
            s.log_path = o.log_path;
            subjects.push_back(s);
            keys.emplace_back(spec, v.name);
        }
    }
    std::vector<SubjectResult> rs = measure_interleaved(subjects, o.popt);
    int failed = 0;
    for (size_t i = 0; i < rs.size(); i++) {
        const SubjectResult &r = rs[i];
        nlohmann::json j = {{"pipeline", keys[i].first},
                            {"variant", keys[i].second},
                            {"failure_kind", failure_kind_name(r.kind)}};
        if (!r.error.empty()) j["error"] = r.error;
        if (r.ok()) {
            std::vector<double> bests;
            for (const TimedRuns &t : r.rounds)
                bests.push_back(t.best_s() * 1e3);
            j.update({{"min_ms", r.best_s() * 1e3},
                      {"median_ms", r.median_s() * 1e3},
                      {"samples", r.runs()},
                      {"rounds", r.rounds.size()},
                      {"round_best_ms", bests},
                      {"round_spread", r.round_spread()},
                      {"converged_rounds", r.converged_rounds()},
                      {"minflt_per_run", r.minflt_per_run()},
                      {"nvcsw_per_run", r.nvcsw_per_run()},
                      {"nivcsw_per_run", r.nivcsw_per_run()},
                      {"busy_fraction", r.busy_fraction()},
                      {"busy_retries", r.busy_retries},
                      {"busy_rounds", r.busy_rounds},
                      {"slow_retries", r.slow_retries},
                      {"round_slowdown", r.slowdowns}});
        } else {
            failed++;
        }
        std::printf("%s\n", j.dump().c_str());
    }
    return failed ? kExitFailed : 0;
}

} // namespace

int main(int argc, char **argv) {
    DriverOptions o = parse_driver_options(argc, argv);
    // Parent modes: the work happens in fresh child processes of this same program.
    if (o.mode == "--check") return check_in_child(o);
    if (o.mode == "--time") return time_interleaved(o);
    // Modes that run the pipeline in this process.
    return run_child_mode(
        {o.mode, o.specs[0], o.runtime, o.ranges, o.file, o.rtol, o.rule, o.exact_inputs});
}
