#include "Measure.h"

#include "plugin/halide/DagBuilder.h"
#include "plugin/halide/ScheduleApplier.h"
#include "plugin/search/Directives.h"
#include "plugin/search/ScheduleText.h"
#include "random_pipelines/RandomPipeline.h"
#include "sampler/ChildProcess.h"

#include <Halide.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>

namespace sextant {

namespace rp = random_pipelines;

namespace {

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

/** Blocks until the parent writes a line to go_fd; false on EOF (the parent gave up). */
bool wait_for_turn(int go_fd) {
    char c;
    for (;;) {
        ssize_t n = read(go_fd, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        if (c == '\n') return true;
    }
}

/** Runs in the benchmark child; writes "compiled <s>" when compiled, then (after its turn)
 * one JSON object, to fd. */
void benchmark_child(const MeasureSpec &spec, int fd, int go_fd) {
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
        rp::run_random_pipeline(p, target, &t, 1); // binds inputs, compiles, first run
        compile_s = t.compile_ms / 1e3;
        write_all(fd, "compiled " + std::to_string(compile_s) + "\n");
        if (!wait_for_turn(go_fd)) return;
        phase = "run";
        std::vector<double> secs;
        Halide::Pipeline pipeline = p.pipeline;
        for (int r = -1; r < std::max(1, spec.repeats); r++) { // r = -1: warm-up, untimed
            std::vector<Halide::Buffer<>> bufs = rp::make_output_buffers(p);
            Halide::Realization real(bufs);
            auto a = Clock::now();
            pipeline.realize(real, target);
            if (r >= 0) secs.push_back(std::chrono::duration<double>(Clock::now() - a).count());
        }
        std::sort(secs.begin(), secs.end());
        size_t n = secs.size();
        double median = n % 2 ? secs[n / 2] : 0.5 * (secs[n / 2 - 1] + secs[n / 2]);
        out = {{"min_s", secs.front()},
               {"median_s", median},
               {"repeats", int(n)},
               {"compile_s", compile_s}};
    } catch (const std::exception &e) {
        out = {{"error", phase + ": " + one_line(e.what())}, {"compile_s", compile_s}};
    }
    write_all(fd, out.dump() + "\n");
}

void candidates_child(const RandomWorkload &w, const std::string &target_string,
                      const MachineInfo &machine, const CandidateOptions &opt,
                      const std::string &weights, int fd) {
    nlohmann::json out;
    try {
        Halide::Target target(target_string);
        rp::RandomPipeline p = rp::make_random_pipeline(w.seed, w.options);
        PipelineDag dag = build_pipeline_dag(output_functions(p), target, machine);
        nlohmann::json list = nlohmann::json::array();
        for (const Candidate &c : make_candidates(dag, opt, weights))
            list.push_back({{"source", c.source}, {"text", c.text}, {"hash", c.hash}});
        out["candidates"] = list;
    } catch (const std::exception &e) {
        out["error"] = one_line(e.what());
    }
    write_all(fd, out.dump() + "\n");
}

} // namespace

void warm_jit_runtime(const std::string &target) {
    Halide::Func f("sextant_warm_jit");
    Halide::Var x;
    f(x) = x;
    f.compile_jit(Halide::Target(target));
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
    enum class State { Compiling, Ready, Timing };
    int64_t tag = 0;
    ChildHandle child;
    std::string output;
    State state = State::Compiling;
    int64_t ready_order = 0;
    double timeout_s = 0;
    Clock::time_point started = Clock::now();
    bool stopped = false; // SIGSTOPped while another child times
    bool paused = false;  // stopped or waiting for its turn: the timeout clock is paused
    Clock::time_point paused_since;
    double paused_s = 0;
    bool timed_out = false;

    void pause() {
        if (paused) return;
        paused = true;
        paused_since = Clock::now();
    }
    void unpause() {
        if (!paused) return;
        paused = false;
        paused_s += std::chrono::duration<double>(Clock::now() - paused_since).count();
    }
    /** Seconds the child has run (compile or timing) so far. */
    double active_s() const {
        auto now = Clock::now();
        double total = std::chrono::duration<double>(now - started).count();
        double p =
            paused_s + (paused ? std::chrono::duration<double>(now - paused_since).count() : 0);
        return total - p;
    }
};

MeasurePool::MeasurePool(int jobs) : jobs_(std::max(1, jobs)) {
    // A child may die before reading its "go"; writing to it must not kill the sampler.
    signal(SIGPIPE, SIG_IGN);
}

MeasurePool::~MeasurePool() {
    for (auto &s : slots_) {
        kill(s->child.pid, SIGKILL);
        close(s->child.out_fd);
        close(s->child.in_fd);
        ChildResult r;
        reap_child(s->child.pid, r);
    }
}

bool MeasurePool::timing() const {
    for (const auto &s : slots_)
        if (s->state == Slot::State::Timing) return true;
    return false;
}

void MeasurePool::start(int64_t tag, const MeasureSpec &spec) {
    auto slot = std::make_unique<Slot>();
    slot->tag = tag;
    slot->timeout_s = spec.timeout_s;
    slot->child =
        spawn_child([&](int out, int in) { benchmark_child(spec, out, in); }, spec.keep_stderr);
    if (timing()) { // nothing may run beside a timed child
        kill(slot->child.pid, SIGSTOP);
        slot->stopped = true;
        slot->pause();
    }
    slots_.push_back(std::move(slot));
}

void MeasurePool::grant_turn() {
    if (hold_ || timing()) return;
    Slot *next = nullptr;
    for (auto &s : slots_)
        if (s->state == Slot::State::Ready && (!next || s->ready_order < next->ready_order))
            next = s.get();
    if (!next) return;
    for (auto &s : slots_) {
        if (s.get() == next || s->state != Slot::State::Compiling || s->stopped) continue;
        kill(s->child.pid, SIGSTOP);
        s->stopped = true;
        s->pause();
    }
    next->state = Slot::State::Timing;
    next->unpause();
    write_all(next->child.in_fd, "go\n");
}

void MeasurePool::resume_all() {
    for (auto &s : slots_) {
        if (!s->stopped) continue;
        kill(s->child.pid, SIGCONT);
        s->stopped = false;
        if (s->state != Slot::State::Ready) s->unpause();
    }
}

std::vector<std::pair<int64_t, Measurement>> MeasurePool::wait() {
    std::vector<std::pair<int64_t, Measurement>> done;
    char buf[65536];
    while (done.empty() && !slots_.empty()) {
        grant_turn();
        double wait_s = 1e9;
        for (auto &s : slots_)
            if (!s->paused && !s->timed_out && s->timeout_s > 0)
                wait_s = std::min(wait_s, s->timeout_s - s->active_s());
        std::vector<pollfd> fds;
        for (auto &s : slots_)
            fds.push_back({s->child.out_fd, POLLIN, 0});
        int wait_ms = wait_s >= 1e8 ? -1 : std::max(0, int(std::ceil(wait_s * 1000)));
        int n = poll(fds.data(), fds.size(), wait_ms);
        if (n < 0 && errno != EINTR) throw std::runtime_error("poll failed");
        std::vector<size_t> finished;
        for (size_t i = 0; n > 0 && i < fds.size(); i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Slot &s = *slots_[i];
            ssize_t got = read(s.child.out_fd, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                finished.push_back(i);
                continue;
            }
            s.output.append(buf, size_t(got));
            if (s.state == Slot::State::Compiling && s.output.rfind("compiled ", 0) == 0 &&
                s.output.find('\n') != std::string::npos) {
                s.state = Slot::State::Ready;
                s.ready_order = ready_counter_++;
                s.pause(); // waiting for its turn does not count against its timeout
            }
        }
        for (auto &s : slots_) {
            if (s->paused || s->timed_out || s->timeout_s <= 0) continue;
            if (s->active_s() >= s->timeout_s) {
                s->timed_out = true;
                kill(s->child.pid, SIGKILL);
            }
        }
        bool was_timing = false;
        for (size_t k = finished.size(); k-- > 0;) {
            Slot &s = *slots_[finished[k]];
            close(s.child.out_fd);
            close(s.child.in_fd);
            ChildResult c;
            c.output = s.output;
            c.timed_out = s.timed_out;
            reap_child(s.child.pid, c);
            c.wall_s = s.active_s();
            Measurement m;
            m.wall_s = std::chrono::duration<double>(Slot::Clock::now() - s.started).count();
            // The result is the last line; a "compiled" line may come before it.
            std::string last = s.output;
            while (!last.empty() && last.back() == '\n')
                last.pop_back();
            size_t nl = last.rfind('\n');
            if (nl != std::string::npos) last = last.substr(nl + 1);
            nlohmann::json j;
            if (!last.empty() && last[0] == '{') {
                try {
                    j = nlohmann::json::parse(last);
                } catch (const nlohmann::json::exception &) {
                    j = nlohmann::json();
                }
            }
            if (j.is_object())
                m.compile_s = j.value("compile_s", 0.0);
            else if (s.output.rfind("compiled ", 0) == 0)
                m.compile_s = std::atof(s.output.c_str() + 9);
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
            if (s.state == Slot::State::Timing) was_timing = true;
            done.emplace_back(s.tag, std::move(m));
            slots_.erase(slots_.begin() + long(finished[k]));
        }
        if (was_timing) resume_all();
    }
    return done;
}

CandidateResult candidates_for(const RandomWorkload &w, const std::string &target,
                               const MachineInfo &machine, const CandidateOptions &opt,
                               double timeout_s, const std::string &weights) {
    ChildResult c = run_in_child(
        [&](int fd) { candidates_child(w, target, machine, opt, weights, fd); }, timeout_s);
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
