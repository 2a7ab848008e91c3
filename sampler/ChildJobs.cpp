#include "ChildJobs.h"

#include "halide/DagBuilder.h"
#include "halide/ScheduleApplier.h"
#include "random_pipelines/RandomPipeline.h"
#include "search/Directives.h"
#include "search/ScheduleText.h"

#include <Halide.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>

namespace sextant {

namespace rp = random_pipelines;
namespace fs = std::filesystem;

namespace {

/** The function name of every compiled schedule (one per shared object). */
const char *kFunction = "sextant_sample";

std::vector<Halide::Internal::Function> output_functions(const rp::RandomPipeline &p) {
    std::vector<Halide::Internal::Function> outs;
    for (const Halide::Func &f : p.outputs)
        outs.push_back(f.function());
    return outs;
}

std::string one_line(std::string s, size_t max_len = 2000) {
    for (char &c : s)
        if (c == '\n' || c == '\r') c = ' ';
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    if (s.size() > max_len) s = s.substr(0, max_len) + "...";
    return s;
}

/** The last line of `out` that parses as a JSON object (null if none). */
nlohmann::json last_json(const std::string &out) {
    nlohmann::json j;
    size_t end = out.size();
    while (end > 0) {
        size_t start = out.rfind('\n', end - 1);
        start = start == std::string::npos ? 0 : start + 1;
        std::string line = out.substr(start, end - start);
        if (!line.empty() && line[0] == '{') {
            try {
                return nlohmann::json::parse(line);
            } catch (const nlohmann::json::exception &) {
            }
        }
        if (start == 0) break;
        end = start - 1;
    }
    return j;
}

/** Links obj into a shared object (in this process's group, so stopping or killing the
 * compile child reaches the linker too). */
RunResult link_shared(const std::string &linker, const std::string &obj, const std::string &so,
                      double timeout_s) {
    ChildOptions co;
    co.timeout_s = timeout_s;
    co.own_process_group = false;
    co.capture_stdout = true; // compiler chatter goes to the result pipe, then is dropped
    return run_program({linker, "-shared", "-o", so, obj}, co);
}

/** Runs in the compile child: writes one JSON object to fd — the shared object and what the
 * timed process needs to fill its inputs, or the error. */
void compile_child(const MeasureSpec &spec, const std::string &dir, int fd) {
    using Clock = std::chrono::steady_clock;
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
        auto t0 = Clock::now();
        std::string obj = dir + "/schedule.o", so = dir + "/schedule.so";
        p.pipeline.compile_to_object(obj, p.pipeline.infer_arguments(), kFunction,
                                     target.with_feature(Halide::Target::NoRuntime));
        RunResult l = link_shared(spec.setup.linker, obj, so, spec.timing.timeout_s);
        if (!l.ok()) throw std::runtime_error("linking the schedule failed: " + l.message);
        compile_s = std::chrono::duration<double>(Clock::now() - t0).count();
        // The inputs' value ranges: the timed process fills them with values in range, as
        // run_random_pipeline does (tables are indexed by input values).
        nlohmann::json fills = nlohmann::json::array();
        for (size_t i = 0; i < p.inputs.size(); i++) {
            const rp::InputSpec &in = p.spec.inputs[i];
            char range[128];
            std::snprintf(range, sizeof range, "=%.17g:%.17g", in.lo, in.hi);
            fills.push_back(p.inputs[i].name() + range);
        }
        out = {{"lib", so + ":" + kFunction}, {"fill", fills}, {"compile_s", compile_s}};
    } catch (const std::exception &e) {
        out = {{"error", phase + ": " + one_line(e.what())},
               {"failure_kind", phase == "build" ? "other" : "compile_error"},
               {"compile_s", compile_s}};
    }
    write_all(fd, out.dump() + "\n");
}

void candidates_child(const RandomWorkload &w, const std::string &target_string,
                      const MachineInfo &machine, const CandidateSearchOptions &opt,
                      const std::string &weights, int fd) {
    nlohmann::json out;
    try {
        Halide::Target target(target_string);
        rp::RandomPipeline p = rp::make_random_pipeline(w.seed, w.options);
        PipelineDag dag = build_pipeline_dag(output_functions(p), target, machine);
        nlohmann::json list = nlohmann::json::array();
        for (const SearchCandidate &c : make_candidates(dag, opt, weights))
            list.push_back({{"source", c.source}, {"text", c.text}, {"hash", c.hash}});
        out["candidates"] = list;
    } catch (const std::exception &e) {
        out["error"] = one_line(e.what());
    }
    write_all(fd, out.dump() + "\n");
}

/** What a compile child's run came to. */
CompiledSchedule compiled_from(const RunResult &r) {
    CompiledSchedule c;
    nlohmann::json j = last_json(r.output);
    if (j.is_object()) c.compile_s = j.value("compile_s", 0.0);
    if (r.ok() && j.is_object() && j.contains("lib")) {
        c.lib = j["lib"].get<std::string>();
        for (const auto &f : j.at("fill"))
            c.fills.push_back(f.get<std::string>());
    } else if (r.ok() && j.is_object() && j.contains("error")) {
        c.error = j["error"].get<std::string>();
        c.kind = parse_failure_kind(j.value("failure_kind", std::string("other")));
    } else {
        c.error = r.ok() ? "compile child returned no result" : r.message;
        c.kind = r.ok() ? FailureKind::Other : r.kind;
    }
    return c;
}

} // namespace

CompiledSchedule compile_schedule(const MeasureSpec &spec, const std::string &dir) {
    fs::create_directories(dir);
    ChildOptions co;
    co.timeout_s = spec.timing.timeout_s;
    co.keep_stderr = spec.keep_stderr;
    return compiled_from(run_function([&](int fd) { compile_child(spec, dir, fd); }, co));
}

Subject timed_subject(const MeasureSpec &spec, const CompiledSchedule &c) {
    Subject sub;
    sub.label = c.lib;
    sub.argv = {spec.setup.time_exe, "--runtime", spec.setup.runtime_so};
    for (const std::string &f : c.fills)
        sub.argv.insert(sub.argv.end(), {"--fill", f});
    sub.argv.insert(sub.argv.end(),
                    {"--max-runs", std::to_string(std::max(1, spec.timing.repeats)), "--budget",
                     std::to_string(spec.timing.run_budget_s), "--time-one", sub.label});
    const int threads = spec.timing.threads > 0 ? spec.timing.threads : spec.machine.parallelism;
    sub.env = {{"HL_NUM_THREADS", std::to_string(std::max(1, threads))}};
    if (!spec.keep_stderr) sub.log_path = "/dev/null";
    return sub;
}

std::string make_work_dir(const std::string &prefix) {
    // temp_directory_path: $TMPDIR (or TMP, TEMP, TEMPDIR), else /tmp.
    std::string dir = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(dir.data())) throw std::runtime_error("cannot make a work directory " + dir);
    return dir;
}

std::string build_runtime(const std::string &target, const std::string &dir,
                          const std::string &linker) {
    fs::create_directories(dir);
    std::string obj = dir + "/sextant_runtime.o", so = dir + "/libsextant_runtime.so";
    ChildOptions co;
    co.timeout_s = 600;
    co.keep_stderr = true;
    RunResult r = run_function(
        [&](int fd) {
            Halide::compile_standalone_runtime(obj, Halide::Target(target));
            write_all(fd, "ok");
        },
        co);
    if (!r.ok() || r.output != "ok")
        throw std::runtime_error("compiling the Halide runtime for " + target +
                                 " failed: " + (r.ok() ? "no result" : r.message));
    ChildOptions lo;
    lo.timeout_s = 600;
    lo.keep_stderr = true;
    RunResult l = run_program({linker, "-shared", "-o", so, obj, "-lpthread", "-ldl"}, lo);
    if (!l.ok()) throw std::runtime_error("linking the Halide runtime failed: " + l.message);
    return so;
}

Measurement measure_schedule(const MeasureSpec &spec) {
    MeasurePool pool(1);
    pool.start(0, spec);
    std::vector<std::pair<int64_t, Measurement>> r;
    while (r.empty())
        r = pool.wait();
    return r[0].second;
}

struct MeasurePool::Slot {
    using Clock = std::chrono::steady_clock;
    int64_t tag = 0;
    MeasureSpec spec;
    std::string dir;
    Child child;
    bool compiled = false; ///< the compile child finished and left a shared object
    int64_t ready_order = 0;
    CompiledSchedule compiled_schedule;
    double compile_active_s = 0;
    Clock::time_point started = Clock::now();
};

MeasurePool::MeasurePool(int jobs) : jobs_(std::max(1, jobs)) {}

MeasurePool::~MeasurePool() {
    for (auto &s : slots_) {
        s->child.kill();
        s->child.reap();
        std::error_code ec;
        fs::remove_all(s->dir, ec);
    }
}

void MeasurePool::start(int64_t tag, const MeasureSpec &spec) {
    auto slot = std::make_unique<Slot>();
    slot->tag = tag;
    slot->spec = spec;
    slot->dir = spec.setup.work_dir + "/m" + std::to_string(tag);
    fs::create_directories(slot->dir);
    ChildOptions co;
    co.timeout_s = spec.timing.timeout_s;
    co.keep_stderr = spec.keep_stderr;
    Slot *s = slot.get();
    slot->child = Child::function([s](int out, int) { compile_child(s->spec, s->dir, out); }, co);
    slots_.push_back(std::move(slot));
}

PauseListed::PauseListed(const std::string &pause_file) {
    if (pause_file.empty()) return;
    std::ifstream in(pause_file);
    long id = 0;
    while (in >> id) {
        // Process group ids only, never 0, 1 or our own group (kill(-0) would stop ourselves).
        if (id <= 1 || id == long(getpgrp()) || id > INT32_MAX) continue;
        if (std::find(stopped_.begin(), stopped_.end(), int(id)) != stopped_.end()) continue;
        if (kill(-pid_t(id), SIGSTOP) == 0) stopped_.push_back(int(id));
    }
}

PauseListed::~PauseListed() {
    for (int id : stopped_)
        kill(-pid_t(id), SIGCONT);
}

Measurement MeasurePool::time_slot(Slot &s) {
    // Nothing of ours runs beside a timing: every compile child is stopped meanwhile, and so is
    // the other work listed in the pause file.
    const PauseListed others(s.spec.timing.pause_file);
    for (auto &o : slots_)
        if (o.get() != &s && !o->compiled) o->child.stop();
    const MeasureSpec &spec = s.spec;
    Subject sub = timed_subject(spec, s.compiled_schedule);
    // The limit covers compile and timing together, as one budget per schedule.
    const ProtocolOptions po =
        spec.timing.protocol(1, std::max(1.0, spec.timing.timeout_s - s.compile_active_s));
    SubjectResult r;
    auto t0 = Slot::Clock::now();
    for (int k = 0; k < std::max(1, spec.rounds); k++)
        if (!measure_round(sub, po, r)) break;
    double time_s = std::chrono::duration<double>(Slot::Clock::now() - t0).count();
    for (auto &o : slots_)
        if (o.get() != &s) o->child.resume();

    Measurement m;
    m.compile_s = s.compiled_schedule.compile_s;
    m.busy_retries = r.busy_retries;
    m.time_s = time_s;
    if (r.ok()) {
        const TimedRuns &t = r.rounds[0];
        for (const TimedRuns &x : r.rounds) {
            m.round_best_s.push_back(x.best_s());
            m.round_minflt.push_back(x.minflt_per_run);
            m.round_busy.push_back(x.busy_fraction);
        }
        m.min_s = r.best_s();
        m.median_s = t.median_s();
        m.repeats = int(t.times_s.size());
        m.minflt_per_run = t.minflt_per_run;
        m.busy_fraction = t.busy_fraction;
    } else {
        m.kind = r.kind;
        // A pipeline's own failure reads as before ("run: ..."); a crash or timeout as such.
        m.error = r.kind == FailureKind::Crash || r.kind == FailureKind::Timeout
                      ? r.error
                      : "run: " + one_line(r.error);
    }
    return m;
}

std::vector<std::pair<int64_t, Measurement>> MeasurePool::wait() {
    std::vector<std::pair<int64_t, Measurement>> done;
    auto finish = [&](size_t i, Measurement m) {
        Slot &s = *slots_[i];
        m.wall_s = std::chrono::duration<double>(Slot::Clock::now() - s.started).count();
        done.emplace_back(s.tag, std::move(m));
        std::error_code ec;
        fs::remove_all(s.dir, ec);
        slots_.erase(slots_.begin() + long(i));
    };
    while (done.empty() && !slots_.empty()) {
        // A compiled schedule's turn: the one that compiled first.
        size_t next = slots_.size();
        for (size_t i = 0; i < slots_.size(); i++)
            if (slots_[i]->compiled &&
                (next == slots_.size() || slots_[i]->ready_order < slots_[next]->ready_order))
                next = i;
        if (next < slots_.size()) {
            finish(next, time_slot(*slots_[next]));
            continue;
        }
        // Otherwise wait for a compile child to finish (or to run out of time).
        std::vector<pollfd> fds;
        std::vector<size_t> which;
        double wait_s = 1e9;
        for (size_t i = 0; i < slots_.size(); i++) {
            if (slots_[i]->compiled) continue;
            fds.push_back({slots_[i]->child.output_fd(), POLLIN, 0});
            which.push_back(i);
            wait_s = std::min(wait_s, slots_[i]->child.time_left_s());
        }
        if (fds.empty()) break; // cannot happen: a compiled slot would have been timed
        int wait_ms = wait_s >= 1e8 ? -1 : std::max(0, int(std::ceil(wait_s * 1000)));
        int n = poll(fds.data(), fds.size(), wait_ms);
        if (n < 0 && errno != EINTR) throw std::runtime_error("poll failed");
        std::vector<size_t> ended;
        for (size_t k = 0; k < fds.size(); k++) {
            Slot &s = *slots_[which[k]];
            if (n > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) && !s.child.read_output(0))
                ended.push_back(which[k]);
            else if (s.child.time_left_s() <= 0) {
                s.child.kill_timed_out();
                ended.push_back(which[k]);
            }
        }
        for (size_t k = ended.size(); k-- > 0;) {
            Slot &s = *slots_[ended[k]];
            s.compile_active_s = s.child.active_s();
            CompiledSchedule c = compiled_from(s.child.reap());
            if (c.ok()) {
                s.compiled_schedule = std::move(c);
                s.compiled = true;
                s.ready_order = ready_counter_++;
                continue;
            }
            Measurement m;
            m.compile_s = c.compile_s;
            m.error = c.error;
            m.kind = c.kind;
            finish(ended[k], std::move(m));
        }
    }
    return done;
}

CandidateResult candidates_for(const RandomWorkload &w, const std::string &target,
                               const MachineInfo &machine, const CandidateSearchOptions &opt,
                               double timeout_s, const std::string &weights) {
    ChildOptions co;
    co.timeout_s = timeout_s;
    RunResult c =
        run_function([&](int fd) { candidates_child(w, target, machine, opt, weights, fd); }, co);
    CandidateResult r;
    r.wall_s = c.wall_s;
    try {
        nlohmann::json j = nlohmann::json::parse(c.output);
        if (j.contains("error")) {
            r.error = j["error"].get<std::string>();
        } else {
            for (const auto &e : j.at("candidates"))
                r.candidates.push_back({e.at("source").get<std::string>(),
                                        e.at("text").get<std::string>(),
                                        e.at("hash").get<std::string>(), nullptr});
        }
    } catch (const nlohmann::json::exception &) {
        r.error = c.ok() ? "candidate child returned no result" : c.message;
    }
    return r;
}

} // namespace sextant
