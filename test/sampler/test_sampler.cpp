// sextant-sample end to end on tiny random pipelines: failures recorded as data, kill -9 at a
// random moment then resume without re-measuring (the training export is
// test_training_export.cpp; the child process runner itself is tested in test/measure).
#include "SamplerTestHelpers.h"
#include "costmodel/TrainingData.h"
#include "plugin/Params.h"
#include "random_pipelines/Planner.h"
#include "sampler/ChildJobs.h"
#include "sampler/RandomWorkload.h"
#include "sampler/Regret.h"
#include "sampler/SampleStore.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace sextant;
using namespace sextant::test;

namespace {

struct Summary {
    long measured = -1, failed = -1, skipped = -1;
};

Summary parse_summary(const std::string &out) {
    std::smatch m;
    Summary s;
    std::regex re("measured (\\d+) new records \\((\\d+) failed\\), skipped (\\d+) already stored");
    if (std::regex_search(out, m, re)) {
        s.measured = std::stol(m[1]);
        s.failed = std::stol(m[2]);
        s.skipped = std::stol(m[3]);
    }
    return s;
}

} // namespace

TEST_CASE("failed measurements are recorded with their error and sampling goes on", "[tool]") {
    std::string dir = temp_dir();
    std::string db = dir + "/s.db";
    int status = 0;
    // --llc-bytes rides along: the workloads record the cache it names, not sysfs's.
    std::string out = run(sampler() + " --db " + db + " --from 3 --to 5 --per-pipeline 2" + kTiny +
                              " --timeout 8 --inject crash@0,error@1,hang@2 --llc-bytes 1234567",
                          &status);
    INFO(out);
    CHECK(status == 0);
    Summary s = parse_summary(out);
    CHECK(s.failed == 3);
    CHECK(s.measured == 4); // the fourth measurement ran normally after three failures
    SampleStore store(db);
    REQUIRE(store.workloads().size() == 2);
    for (const WorkloadInfo &w : store.workloads())
        CHECK(w.machine.find(";llc=1234567;") != std::string::npos);
    std::vector<std::string> errors;
    int ok = 0;
    store.for_each_record([&](const WorkloadInfo &, const SampleRecord &r) {
        if (r.ok()) {
            ok++;
            CHECK(*r.runtime_min_s > 0);
            CHECK(*r.runtime_median_s >= *r.runtime_min_s);
            CHECK(r.repeats == 2);
        } else {
            errors.push_back(*r.error);
        }
    });
    CHECK(ok == 1);
    REQUIRE(errors.size() == 3);
    CHECK(errors[0].rfind("crash: signal 11", 0) == 0);
    CHECK(errors[1].find("sextant_injected_no_such_var") != std::string::npos); // Halide's message
    CHECK(errors[2].rfind("timeout after", 0) == 0);
}

TEST_CASE("kill -9 leaves a consistent store and a rerun measures only what is missing", "[tool]") {
    std::string dir = temp_dir();
    std::string db = dir + "/s.db";
    std::string args = " --db " + db + " --from 20 --to 23 --per-pipeline 2" + std::string(kTiny);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl("/bin/sh", "sh", "-c", ("exec " + sampler() + args).c_str(), (char *)nullptr);
        _exit(127);
    }
    // Wait for the first record, then kill at once (most likely mid-measurement).
    int64_t before_kill = 0;
    for (int i = 0; i < 1200 && before_kill < 1; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (access(db.c_str(), F_OK) != 0) continue;
        SampleStore peek(db);
        before_kill = peek.counts().records;
    }
    REQUIRE(before_kill >= 1);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));

    std::map<int64_t, std::optional<double>> existing;
    {
        SampleStore store(db);
        CHECK(store.integrity_check() == "ok");
        store.for_each_record(
            [&](const WorkloadInfo &, const SampleRecord &r) { existing[r.id] = r.runtime_min_s; });
    }
    REQUIRE(existing.size() >= 1);
    REQUIRE(existing.size() < 6); // killed before it finished

    std::string out = run(sampler() + args, &status);
    INFO(out);
    CHECK(status == 0);
    Summary s = parse_summary(out);
    SampleStore store(db);
    int64_t total = store.counts().records;
    CHECK(s.skipped == long(existing.size()));
    CHECK(s.measured == long(total - int64_t(existing.size())));
    CHECK(total >= 5); // 3 pipelines x 2 (a pipeline may have fewer distinct schedules)
    store.for_each_record([&](const WorkloadInfo &, const SampleRecord &r) {
        auto it = existing.find(r.id);
        if (it != existing.end()) CHECK(it->second == r.runtime_min_s); // not re-measured
    });
    // A third run has nothing left to do.
    Summary again = parse_summary(run(sampler() + args));
    CHECK(again.measured == 0);
    CHECK(again.skipped == long(total));
}

TEST_CASE("records of an older generator version count as today's pipeline only where it built "
          "the same code") {
    // Version 2 changed only (sum, difference) TuplePair stages; find a plan with one and one
    // without among the first seeds.
    namespace rp = random_pipelines;
    auto changed_by_v2 = [](const rp::PipelineSpec &spec) {
        for (const rp::StageSpec &s : spec.stages)
            if (s.kind == rp::StageKind::TuplePair && s.ints[0] != 0) return true;
        return false;
    };
    std::optional<RandomWorkload> same, changed;
    for (uint64_t seed = 0; seed < 400 && (!same || !changed); seed++) {
        RandomWorkload w;
        w.seed = seed;
        (changed_by_v2(rp::plan_random_pipeline(seed, w.options)) ? changed : same) = w;
    }
    REQUIRE(same);
    REQUIRE(changed);
    CHECK(same_pipeline_as_recorded(*same, random_identity(*same)));
    CHECK(same_pipeline_as_recorded(*same, random_identity(*same, 1)));
    CHECK(random_identity(*same, 1) != random_identity(*same));
    CHECK(same_pipeline_as_recorded(*changed, random_identity(*changed)));
    CHECK_FALSE(same_pipeline_as_recorded(*changed, random_identity(*changed, 1)));
    // Another seed's identity, or a version this generator does not know, never matches.
    RandomWorkload other = *same;
    other.seed = same->seed + 1000;
    CHECK_FALSE(same_pipeline_as_recorded(*same, random_identity(other, 1)));
    CHECK_FALSE(same_pipeline_as_recorded(*same, random_identity(*same, 0)));
}

TEST_CASE("sampling with K fresh processes a schedule (--processes) keeps the fastest", "[tool]") {
    std::string dir = temp_dir();
    int status = 0;
    // Not sampler(): its --quiet drops the per-schedule lines this reads.
    std::string out =
        run(std::string(SEXTANT_SAMPLE_EXE) + " --db " + dir +
                "/s.db --from 3 --to 4 --per-pipeline 2" + kTiny + " --processes 3 2>&1",
            &status);
    INFO(out);
    REQUIRE(status == 0);
    // "SOURCE 0.012 ms (median ..., processes 0.013/0.012/0.014 ms), compile ..."
    std::regex line(
        R"(: (\S+) ([0-9.]+) ms \(median [^)]*, processes ([0-9.]+)/([0-9.]+)/([0-9.]+) ms\))");
    std::map<std::string, double> printed;
    int lines = 0;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator();
         ++it) {
        const std::smatch &m = *it;
        lines++;
        const double best = std::min({std::stod(m[3]), std::stod(m[4]), std::stod(m[5])});
        CHECK(std::stod(m[2]) == Approx(best).margin(1e-9)); // the label: the fastest process
        printed[m[1]] = best;
    }
    CHECK(lines == 2);
    SampleStore store(dir + "/s.db");
    int ok = 0;
    store.for_each_record([&](const WorkloadInfo &, const SampleRecord &r) {
        REQUIRE(r.ok());
        ok++;
        REQUIRE(printed.count(r.source));
        CHECK(*r.runtime_min_s * 1e3 == Approx(printed[r.source]).margin(0.0005));
        CHECK(*r.runtime_median_s >= *r.runtime_min_s);
    });
    CHECK(ok == 2);
    CHECK_THAT(
        run(sampler() + " --db " + dir + "/t.db --from 3 --to 4 --processes 0 2>&1", &status),
        Catch::Contains("--processes must be at least 1"));
    CHECK(status != 0);
}

TEST_CASE("two jobs measure the same schedules as one, and timeouts still apply", "[tool]") {
    std::string dir = temp_dir();
    std::string args = " --from 3 --to 5 --per-pipeline 3" + std::string(kTiny);
    int status = 0;
    run(sampler() + " --db " + dir + "/one.db" + args, &status);
    REQUIRE(status == 0);
    std::string out =
        run(sampler() + " --db " + dir + "/two.db" + args + " --jobs 2 --timeout 5 --inject hang@1",
            &status);
    INFO(out);
    REQUIRE(status == 0);
    auto hashes = [](const std::string &db, int64_t *failed) {
        SampleStore s(db);
        *failed = s.counts().failed;
        std::set<std::string> h;
        s.for_each_record([&](const WorkloadInfo &w, const SampleRecord &r) {
            h.insert(w.identity + "/" + r.schedule_hash);
        });
        return h;
    };
    int64_t failed_one = 0, failed_two = 0;
    std::set<std::string> one = hashes(dir + "/one.db", &failed_one);
    std::set<std::string> two = hashes(dir + "/two.db", &failed_two);
    CHECK(one == two);
    CHECK(failed_one == 0);
    CHECK(failed_two == 1); // the hung child was killed; the other child finished normally
}

#ifdef SEXTANT_TRAIN_EXE
TEST_CASE("a second pass with --weights adds the learned model's schedules up to K", "[tool]") {
    std::string dir = temp_dir();
    std::string db = dir + "/s.db";
    std::string seeds = " --db " + db + " --from 40 --to 42" + std::string(kTiny);
    int status = 0;
    run(sampler() + seeds + " --per-pipeline 2", &status);
    REQUIRE(status == 0);
    std::map<int64_t, int64_t> first_pass; // workload -> records
    {
        SampleStore store(db);
        for (const WorkloadInfo &w : store.workloads())
            first_pass[w.id] = store.count_records(w.id);
    }
    REQUIRE(first_pass.size() == 2);
    // Weights that rank differently from the analytical model: trained on synthetic data
    // whose coefficients depart from the analytical ones.
    std::string train_out = dir + "/train";
    run(std::string(SEXTANT_TRAIN_EXE) + " --synthetic 24 --epochs 2 --quiet --no-plot --out " +
            train_out + " 2>&1",
        &status);
    REQUIRE(status == 0);
    std::string out =
        run(sampler() + seeds + " --per-pipeline 6 --weights " + train_out + "/weights.sxw 2>&1",
            &status);
    INFO(out);
    REQUIRE(status == 0);
    SampleStore store(db);
    int64_t added = 0;
    for (const WorkloadInfo &w : store.workloads()) {
        std::vector<SampleRecord> rs = store.records(w.id);
        CHECK(int64_t(rs.size()) <= 6);
        for (size_t i = size_t(first_pass[w.id]); i < rs.size(); i++) {
            CHECK(rs[i].source.rfind("learned:", 0) == 0);
            added++;
        }
    }
    CHECK(added >= 1);
    // Nothing is left to do on a rerun.
    Summary again = parse_summary(
        run(sampler() + seeds + " --per-pipeline 6 --weights " + train_out + "/weights.sxw"));
    CHECK(again.measured == 0);

    // DAgger: a pass with --final-beam adds states of the learned search's last beams, here
    // with an ensemble of the weights (a comma-separated list).
    const std::string w = train_out + "/weights.sxw";
    std::map<int64_t, int64_t> before;
    for (const WorkloadInfo &wl : store.workloads())
        before[wl.id] = store.count_records(wl.id);
    out = run(sampler() + seeds + " --per-pipeline 12 --final-beam 2 --weights " + w + "," + w +
                  "," + w + " 2>&1",
              &status);
    INFO(out);
    REQUIRE(status == 0);
    int64_t finals = 0;
    for (const WorkloadInfo &wl : store.workloads()) {
        std::vector<SampleRecord> rs = store.records(wl.id);
        CHECK(int64_t(rs.size()) <= 12);
        for (size_t i = size_t(before[wl.id]); i < rs.size(); i++) {
            INFO(rs[i].source);
            CHECK(rs[i].source.rfind("learned:", 0) == 0);
            finals += rs[i].source.rfind("learned:final:", 0) == 0;
        }
    }
    CHECK(finals >= 1);
}

TEST_CASE(
    "sextant-sample --regret times both models' picks beside the best stored schedule, and resumes",
    "[tool]") {
    std::string dir = temp_dir();
    std::string db = dir + "/best.db", out_file = dir + "/regret.jsonl";
    std::string seeds = " --db " + db + " --from 50 --to 52" + std::string(kTiny);
    int status = 0;
    run(sampler() + seeds + " --per-pipeline 3", &status);
    REQUIRE(status == 0);
    std::string train_out = dir + "/train";
    run(std::string(SEXTANT_TRAIN_EXE) + " --synthetic 24 --epochs 2 --quiet --no-plot --out " +
            train_out + " 2>&1",
        &status);
    REQUIRE(status == 0);
    const std::string weights = train_out + "/weights.sxw";
    const std::string regret = sampler() + seeds + " --regret " + weights + " --rounds 2 --busy-ok";
    run(regret + " 2>&1", &status);
    CHECK(status == 2); // no --regret-out
    std::string out = run(regret + " --regret-out " + out_file + " 2>&1", &status);
    INFO(out);
    REQUIRE(status == 0);
    CHECK(out.find("judged 2 pipelines (0 failed)") != std::string::npos);

    SampleStore store(db);
    std::ifstream in(out_file);
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        lines++;
        nlohmann::json j = nlohmann::json::parse(line);
        INFO(line);
        REQUIRE_FALSE(j.contains("error"));
        CHECK(j["weights"] == weights);
        // The fastest stored record of the pipeline is the best known schedule.
        std::optional<WorkloadInfo> w =
            store.find_workload(j["identity"].get<std::string>(), store.workloads()[0].target,
                                store.workloads()[0].machine);
        REQUIRE(w);
        std::string fastest;
        double fastest_s = 0;
        for (const SampleRecord &r : store.records(w->id))
            if (r.ok() && (fastest.empty() || *r.runtime_min_s < fastest_s))
                fastest = r.schedule_hash, fastest_s = *r.runtime_min_s;
        std::set<std::string> roles;
        double min_s = 0;
        for (const auto &s : j["schedules"]) {
            for (const auto &role : s["roles"])
                roles.insert(role.get<std::string>());
            if (s["roles"].dump().find("best_known") != std::string::npos)
                CHECK(s["hash"] == fastest);
            CHECK(s["round_best_s"].size() == 2);
            double t = s["time_s"].get<double>();
            CHECK(t > 0);
            if (min_s == 0 || t < min_s) min_s = t;
        }
        CHECK(roles == std::set<std::string>{"analytical", "learned", "best_known"});
        // By default the learned model ranks 4 analytical candidates, as the plugin does.
        CHECK(j["learned_candidates"] == 4);
        CHECK(j["learned_margin"] == 0.05); // and with the plugin's trust margin
        // (A pick both models make is one entry, with the analytical pick's source.)
        for (const auto &s : j["schedules"])
            if (s["roles"].dump().find("\"learned\"") != std::string::npos &&
                s["roles"].dump().find("\"analytical\"") == std::string::npos)
                CHECK(s["source"].get<std::string>().rfind("ranked:", 0) == 0);
        CHECK(j["best_s"].get<double>() == min_s);
        CHECK(j["learned_regret"].get<double>() >= 1);
        CHECK(j["analytical_regret"].get<double>() >= 1);
        CHECK(j["learned_over_analytical"].get<double>() ==
              Approx(j["learned_regret"].get<double>() / j["analytical_regret"].get<double>()));
    }
    CHECK(lines == 2);
    // A rerun judges nothing again.
    out = run(regret + " --regret-out " + out_file + " 2>&1", &status);
    CHECK(status == 0);
    CHECK(out.find("judged 0 pipelines (0 failed), skipped 2") != std::string::npos);
    // Halves: the selection half is the even seeds (50 of 50-51), as regret_report.py's.
    const std::string half_file = dir + "/half.jsonl";
    out = run(regret + " --regret-out " + half_file + " --regret-half selection 2>&1", &status);
    INFO(out);
    CHECK(status == 0);
    CHECK(out.find("judged 1 pipelines (0 failed)") != std::string::npos);
    std::ifstream half_in(half_file);
    REQUIRE(std::getline(half_in, line));
    CHECK(nlohmann::json::parse(line)["seed"] == 50);
    out = run(regret + " --regret-out " + half_file + " --regret-half odd 2>&1", &status);
    CHECK(status == 2);
    CHECK(out.find("--regret-half") != std::string::npos);
    // One selection-half run into a file of its own; its first line.
    auto first_judged = [&](const std::string &file, const std::string &args) {
        out = run(regret + " --regret-out " + file + " --regret-half selection " + args + " 2>&1",
                  &status);
        INFO(out);
        CHECK(status == 0);
        std::ifstream in(file);
        std::string first;
        REQUIRE(std::getline(in, first));
        return nlohmann::json::parse(first);
    };
    // The learned model's own beam search, as SEXTANT_LEARNED_SEARCH=beam.
    const std::string beam_file = dir + "/beam.jsonl";
    nlohmann::json bj = first_judged(beam_file, "--regret-learned-search beam");
    CHECK(bj["learned_candidates"] == 0);
    for (const auto &s : bj["schedules"])
        if (s["roles"].dump().find("\"learned\"") != std::string::npos &&
            s["roles"].dump().find("\"analytical\"") == std::string::npos)
            CHECK(s["source"].get<std::string>().rfind("learned:", 0) == 0);
    out =
        run(regret + " --regret-out " + beam_file + " --regret-learned-search some 2>&1", &status);
    CHECK(status == 2);
    CHECK(out.find("neither 'beam' nor a count") != std::string::npos);
    const std::string margin_file = dir + "/margin.jsonl";
    CHECK(first_judged(margin_file, "--regret-learned-margin 0")["learned_margin"] == 0);
    out =
        run(regret + " --regret-out " + margin_file + " --regret-learned-margin 101 2>&1", &status);
    CHECK(status == 2);
    CHECK(out.find("at most 100") != std::string::npos);
}
#endif

TEST_CASE("buffers are aligned as RunGen's: aligned vector loads do not crash", "[tool]") {
    // Random pipeline 20013's schedules load an input with vmovdqa32 (AVX-512, 64-byte
    // alignment); sextant-time once gave its buffers a std::vector's 16 bytes and every one of
    // them crashed with SIGSEGV. Only on a machine with AVX-512 does this test catch that.
    std::string dir = temp_dir();
    int status = 0;
    std::string out = run(sampler() + " --db " + dir + "/s.db --from 20013 --to 20014" +
                              " --per-pipeline 2 --repeats 2 --beam 8 --passes 1",
                          &status);
    INFO(out);
    CHECK(status == 0);
    Summary s = parse_summary(out);
    CHECK(s.measured == 2);
    CHECK(s.failed == 0);
}

namespace {

/** The state letter of /proc/PID/stat ('S' sleeping, 'T' stopped, ...). */
char process_state(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(in, line);
    const size_t close = line.rfind(')');
    return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

/** Waits up to 2 s for `pid` to reach (want = true) or leave (want = false) the stopped state. */
bool wait_stopped(pid_t pid, bool want) {
    for (int i = 0; i < 200; i++) {
        if ((process_state(pid) == 'T') == want) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

} // namespace

TEST_CASE("the process groups of a pause file are stopped during a timing and resumed after",
          "[tool]") {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        setpgid(0, 0);
        for (;;)
            pause();
    }
    setpgid(child, child); // whichever of the two runs first
    const std::string file = temp_dir() + "/pause";
    {
        // Skipped: 0 and 1, our own group, a group that does not exist, a repeated id.
        std::ofstream out(file);
        out << "0\n1\n" << getpgrp() << "\n" << child << "\n" << child << "\n2147483000\n";
    }
    {
        PauseListed paused(file);
        CHECK(paused.stopped() == std::vector<int>{int(child)});
        CHECK(wait_stopped(child, true));
    }
    CHECK(wait_stopped(child, false));
    {
        PauseListed none("");
        CHECK(none.stopped().empty());
    }
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
}

TEST_CASE("the regret judge searches as the plugin does, at the sampler's beam", "[regret]") {
    // The plugin's defaults turn on passes a plain BeamSearchOptions leaves off; the judge's
    // picks must be the plugin's (seed 200942 picked differently without them).
    BeamSearchOptions sampler;
    sampler.beam_size = 12;
    sampler.num_passes = 2;
    sampler.time_limit_s = 7;
    REQUIRE(!sampler.lookahead_pass);
    const BeamSearchOptions judged = regret_search(sampler);
    const BeamSearchOptions plugin = Params().search;
    CHECK(judged.lookahead_pass == plugin.lookahead_pass);
    CHECK(judged.allocator_outlook_pass == plugin.allocator_outlook_pass);
    CHECK(judged.near_cost == plugin.near_cost);
    CHECK(plugin.lookahead_pass);
    CHECK(plugin.allocator_outlook_pass);
    CHECK(plugin.near_cost > 0);
    CHECK(judged.beam_size == 12);
    CHECK(judged.num_passes == 2);
    CHECK(judged.time_limit_s == 7);
}
