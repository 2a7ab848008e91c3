#include "Measure.h"

#include "plugin/halide/DagBuilder.h"
#include "plugin/halide/ScheduleApplier.h"
#include "plugin/search/Directives.h"
#include "plugin/search/ScheduleText.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/ChildProcess.h"

#include <Halide.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>

namespace sextant {

namespace rp = random_pipelines;

namespace {

std::vector<Halide::Internal::Function> output_functions(const rp::RandomPipeline &p) {
    std::vector<Halide::Internal::Function> outs;
    for (const Halide::Func &f : p.outputs) outs.push_back(f.function());
    return outs;
}

std::string one_line(std::string s, size_t max_len = 2000) {
    for (char &c : s)
        if (c == '\n' || c == '\r') c = ' ';
    while (!s.empty() && s.back() == ' ') s.pop_back();
    if (s.size() > max_len) s = s.substr(0, max_len) + "...";
    return s;
}

/** Runs in the benchmark child; writes one JSON object to fd. */
void benchmark_child(const MeasureSpec &spec, int fd) {
    using Clock = std::chrono::steady_clock;
    // The JIT runtime sizes its thread pool from HL_NUM_THREADS on first use.
    setenv("HL_NUM_THREADS", std::to_string(std::max(1, spec.threads)).c_str(), 1);
    nlohmann::json out;
    std::string phase = "build";
    double compile_s = 0;
    try {
        Halide::Target target(spec.target);
        rp::RandomPipeline p = rp::make_random_pipeline(spec.workload.seed, spec.workload.options);
        std::vector<Halide::Internal::Function> outs = output_functions(p);
        PipelineDag dag = build_pipeline_dag(outs, target, spec.machine);
        phase = "schedule";
        Decisions d = parse_schedule_text(dag, spec.schedule_text);
        std::vector<Directive> directives = make_directives(dag, d);
        std::map<std::string, Halide::Func> funcs = funcs_by_name(outs);
        apply_directives(dag, directives, funcs);
        if (spec.inject == "crash") std::raise(SIGSEGV);
        if (spec.inject == "hang") sleep(100000);
        if (spec.inject == "error")
            p.outputs[0].vectorize(Halide::Var("sextant_injected_no_such_var"), 8);
        phase = "compile";
        rp::RunTimings t;
        rp::run_random_pipeline(p, target, &t, 1); // binds inputs, compiles, warm-up run
        compile_s = t.compile_ms / 1e3;
        phase = "run";
        std::vector<double> secs;
        Halide::Pipeline pipeline = p.pipeline;
        for (int r = 0; r < std::max(1, spec.repeats); r++) {
            std::vector<Halide::Buffer<>> bufs = rp::make_output_buffers(p);
            Halide::Realization real(bufs);
            auto a = Clock::now();
            pipeline.realize(real, target);
            secs.push_back(std::chrono::duration<double>(Clock::now() - a).count());
        }
        std::sort(secs.begin(), secs.end());
        size_t n = secs.size();
        double median = n % 2 ? secs[n / 2] : 0.5 * (secs[n / 2 - 1] + secs[n / 2]);
        out = {{"min_s", secs.front()}, {"median_s", median}, {"repeats", int(n)},
               {"compile_s", compile_s}};
    } catch (const std::exception &e) {
        out = {{"error", phase + ": " + one_line(e.what())}, {"compile_s", compile_s}};
    }
    write_all(fd, out.dump() + "\n");
}

void candidates_child(const RandomWorkload &w, const std::string &target_string,
                      const MachineInfo &machine, const CandidateOptions &opt, int fd) {
    nlohmann::json out;
    try {
        Halide::Target target(target_string);
        rp::RandomPipeline p = rp::make_random_pipeline(w.seed, w.options);
        PipelineDag dag = build_pipeline_dag(output_functions(p), target, machine);
        nlohmann::json list = nlohmann::json::array();
        for (const Candidate &c : make_candidates(dag, opt))
            list.push_back({{"source", c.source}, {"text", c.text}, {"hash", c.hash}});
        out["candidates"] = list;
    } catch (const std::exception &e) {
        out["error"] = one_line(e.what());
    }
    write_all(fd, out.dump() + "\n");
}

} // namespace

Measurement measure_schedule(const MeasureSpec &spec) {
    ChildResult c = run_in_child([&](int fd) { benchmark_child(spec, fd); }, spec.timeout_s,
                                 spec.keep_stderr);
    Measurement m;
    m.wall_s = c.wall_s;
    nlohmann::json j;
    if (!c.output.empty()) {
        try {
            j = nlohmann::json::parse(c.output);
        } catch (const nlohmann::json::exception &) {
            j = nlohmann::json();
        }
    }
    if (j.is_object()) m.compile_s = j.value("compile_s", 0.0);
    std::string failure = c.failure();
    if (j.is_object() && j.contains("min_s") && failure.empty()) {
        m.min_s = j["min_s"].get<double>();
        m.median_s = j["median_s"].get<double>();
        m.repeats = j["repeats"].get<int>();
    } else if (j.is_object() && j.contains("error")) {
        m.error = j["error"].get<std::string>();
    } else {
        m.error = failure.empty() ? "benchmark child returned no result" : failure;
    }
    return m;
}

CandidateResult candidates_for(const RandomWorkload &w, const std::string &target,
                               const MachineInfo &machine, const CandidateOptions &opt,
                               double timeout_s) {
    ChildResult c = run_in_child([&](int fd) { candidates_child(w, target, machine, opt, fd); },
                                 timeout_s);
    CandidateResult r;
    r.wall_s = c.wall_s;
    std::string failure = c.failure();
    try {
        nlohmann::json j = nlohmann::json::parse(c.output);
        if (j.contains("error")) {
            r.error = j["error"].get<std::string>();
        } else {
            for (const auto &e : j.at("candidates"))
                r.candidates.push_back({e.at("source").get<std::string>(),
                                        e.at("text").get<std::string>(),
                                        e.at("hash").get<std::string>()});
        }
    } catch (const nlohmann::json::exception &) {
        r.error = failure.empty() ? "candidate child returned no result" : failure;
    }
    return r;
}

} // namespace sextant
