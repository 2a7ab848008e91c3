// sextant-sample --export-training: stored measurements re-featurized into the trainer's
// samples, random pipelines rebuilt from their seed and autotuning runs' pipelines in their own
// generator (sampler/TrainingExport.h).
#include "SamplerTestHelpers.h"
#include "costmodel/TrainingData.h"
#include "featurizer/Schema.h"
#include "sampler/RandomWorkload.h"
#include "sampler/SampleStore.h"
#include "sampler/TrainingExport.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <optional>
#include <set>

using namespace sextant;
using namespace sextant::test;

TEST_CASE("export-training re-featurizes every successful record", "[tool]") {
    std::string dir = temp_dir();
    std::string db = dir + "/s.db", train = dir + "/train.jsonl", dump = dir + "/dump.jsonl";
    int status = 0;
    std::string out =
        run(sampler() + " --db " + db + " --from 40 --to 42 --per-pipeline 2" + kTiny +
                " --inject error@1 --export-training " + train + " --export " + dump,
            &status);
    INFO(out);
    REQUIRE(status == 0);
    SampleStore store(db);
    StoreCounts c = store.counts();
    REQUIRE(c.records >= 3);
    CHECK(c.failed == 1);
    std::vector<TrainingSample> samples = read_samples_jsonl(train);
    CHECK(int64_t(samples.size()) == c.records - c.failed);
    std::set<std::string> identities;
    for (const WorkloadInfo &w : store.workloads())
        identities.insert(w.identity);
    std::multiset<double> runtimes;
    std::set<std::string> sources;
    store.for_each_record([&](const WorkloadInfo &, const SampleRecord &r) {
        if (r.ok()) runtimes.insert(*r.runtime_min_s);
        sources.insert(r.source);
    });
    for (const TrainingSample &t : samples) {
        CHECK(identities.count(t.pipeline) == 1);
        CHECK(runtimes.count(t.runtime_seconds) >= 1);
        CHECK(sources.count(t.source) == 1); // which search made it, for offline checks
        CHECK(!t.schedule.empty());
        CHECK(t.algorithm.size() == t.schedule.size());
    }

    // With prefixes: the same whole schedules, and partial states of them labelled with
    // their schedule's runtime.
    std::string train2 = dir + "/train2.jsonl";
    out = run(sampler() + " --db " + db + " --export-training " + train2 + " --export-prefixes 2",
              &status);
    INFO(out);
    REQUIRE(status == 0);
    std::vector<TrainingSample> with_prefixes = read_samples_jsonl(train2);
    std::multiset<std::pair<std::string, double>> whole_runs, partial_runs;
    for (const TrainingSample &t : with_prefixes)
        (t.prefix_funcs == 0 ? whole_runs : partial_runs).insert({t.pipeline, t.runtime_seconds});
    CHECK(whole_runs.size() == samples.size());
    CHECK(!partial_runs.empty());
    CHECK(partial_runs.size() <= 2 * samples.size());
    for (const auto &r : partial_runs)
        CHECK(whole_runs.count(r) >= 1);
    CHECK(run(sampler() + " --db " + db + " --export-prefixes 2 2>&1", &status)
              .find("--export-training") != std::string::npos);
    CHECK(status != 0);

    // The store's own export re-imports into an empty store as the same records.
    SampleStore copy(dir + "/copy.db");
    CHECK(copy.import_jsonl(dump) == c.records);
    CHECK(copy.import_jsonl(dump) == 0);
    CHECK(copy.counts().records == c.records);
    CHECK(copy.counts().failed == c.failed);
}

TEST_CASE("export-training rebuilds a user workload in its generator", "[tool]") {
    // An autotuning run's records (kind "user") name the generator that builds their
    // pipeline: the export runs it with the plugin, and each sample must carry exactly the
    // features the plugin's own featurization of that schedule has.
    std::string dir = temp_dir();
    const std::string gen = SEXTANT_TEST_GENERATOR, target = SEXTANT_TEST_TARGET;
    int status = 0;
    std::string out = run("SEXTANT_BEAM_SIZE=2 SEXTANT_DUMP_SCHEDULE=" + dir + "/pick.txt " + gen +
                              " -g reads_past_estimates -o " + dir +
                              " -f pipeline -e schedule,featurization -p " + plugin_path() +
                              " -s Sextant auto_schedule=true target=" + target +
                              " machine_params=2,16777216,40 2>&1",
                          &status);
    INFO(out);
    REQUIRE(status == 0);
    std::ifstream pick_in(dir + "/pick.txt");
    std::string pick((std::istreambuf_iterator<char>(pick_in)), std::istreambuf_iterator<char>());
    REQUIRE(!pick.empty());

    SampleStore store(dir + "/s.db");
    WorkloadInfo w;
    w.kind = "user";
    w.identity = "user:test:reads_past_estimates()";
    w.target = target;
    w.machine = "machine_params=2,16777216,40";
    w.options = nlohmann::json{{"generator", gen},
                               {"generator_name", "reads_past_estimates"},
                               {"generator_args", nlohmann::json::array()}}
                    .dump();
    w.sextant_version = "test";
    w.featurizer_version = kFeatureSchemaVersion;
    const int64_t wid = store.upsert_workload(w);
    auto add = [&](const std::string &text, std::optional<double> runtime,
                   std::optional<std::string> error) {
        SampleRecord r;
        r.workload_id = wid;
        r.schedule_text = text;
        r.source = "beam";
        r.runtime_min_s = r.runtime_median_s = runtime;
        r.repeats = 1;
        r.error = error;
        r.featurizer_version = kFeatureSchemaVersion;
        store.add_record(r);
    };
    add(pick, 2e-3, std::nullopt);
    add("sextant-schedule 1\nfunc no_such_func root\n", 3e-3, std::nullopt); // does not replay
    add(pick + "\n", std::nullopt, std::string("timeout after 10 s"));       // censored: 2 x 3 ms
    add(pick + "\n\n", std::nullopt, std::string("crashed: SIGSEGV"));       // left out

    // Another user workload whose generator is gone: named, skipped, the rest exported.
    WorkloadInfo gone = w;
    gone.identity = "user:gone:x()";
    gone.options =
        nlohmann::json{{"generator", dir + "/no-such-generator"}, {"generator_name", "x"}}.dump();
    SampleRecord lost;
    lost.workload_id = store.upsert_workload(gone);
    lost.schedule_text = pick;
    lost.runtime_min_s = lost.runtime_median_s = 1e-3;
    store.add_record(lost);

    // One built elsewhere (another checkout): found by file name in --generators-dir.
    WorkloadInfo moved = w;
    moved.identity = "user:moved:reads_past_estimates()";
    const std::string gen_name = gen.substr(gen.rfind('/') + 1);
    moved.options = nlohmann::json{{"generator", "/elsewhere/build/" + gen_name},
                                   {"generator_name", "reads_past_estimates"}}
                        .dump();
    SampleRecord there;
    there.workload_id = store.upsert_workload(moved);
    there.schedule_text = pick;
    there.runtime_min_s = there.runtime_median_s = 5e-3;
    store.add_record(there);

    TrainingExportStats st =
        export_training(store, dir + "/train.jsonl", gen.substr(0, gen.rfind('/')));
    std::string warnings;
    for (const std::string &m : st.warnings)
        warnings += m + "\n";
    INFO(warnings);
    CHECK(st.samples == 3);
    CHECK(st.censored_records == 1);
    CHECK(st.failed_records == 1);
    CHECK(st.skipped_records == 1);
    CHECK(st.skipped_workloads == 1);
    CHECK(warnings.find("no_such_func") != std::string::npos);
    CHECK(warnings.find("no-such-generator") != std::string::npos);

    std::vector<TrainingSample> samples = read_samples_jsonl(dir + "/train.jsonl");
    REQUIRE(samples.size() == 3);
    CHECK(samples[0].pipeline == w.identity);
    CHECK(samples[2].pipeline == moved.identity);
    CHECK(samples[2].schedule == samples[0].schedule);
    CHECK(samples[0].runtime_seconds == 2e-3);
    CHECK(samples[1].runtime_seconds == 6e-3);
    std::ifstream fin(dir + "/pipeline.featurization");
    nlohmann::json f = nlohmann::json::parse(fin);
    const auto &names = schedule_schema();
    REQUIRE(samples[0].schedule.size() == f.at("stages").size());
    for (size_t i = 0; i < samples[0].schedule.size(); i++) {
        const nlohmann::json &row = f["stages"][i];
        CHECK(samples[0].algorithm[i] == row.at("algorithm").get<std::vector<float>>());
        for (size_t k = 0; k < names.size(); k++) {
            INFO("stage " << i << " feature " << names[k].name);
            CHECK(samples[0].schedule[i][k] ==
                  Approx(row.at("schedule").at(names[k].name).get<double>()));
        }
    }
}

TEST_CASE("samples record the processor they were timed on, and two processors do not train as "
          "one",
          "[tool]") {
    // Two processors can share a target and machine params: only the host in the machine
    // string tells their samples apart.
    MachineInfo m;
    m.parallelism = 2;
    CHECK(machine_string(m, "Chip; rev=2") == machine_string(m) + ";host=Chip, rev,2");
    CHECK(machine_string_host(machine_string(m, "Chip; rev=2")) == "Chip, rev,2");
    CHECK(machine_string_host(machine_string(m)).empty());
    CHECK(parse_machine_string(machine_string(m, "Chip")).parallelism == 2);
    CHECK(machine_string_params(machine_string(m, "Chip")) == machine_string(m));
    // The caches host_description lists after the model are not part of the processor.
    CHECK(host_processor("AMD EPYC, L1d 32K, L2 1024K, L3 32768K") == "AMD EPYC");
    CHECK(host_processor("AMD EPYC") == "AMD EPYC");
    CHECK(host_processor("Chip, Lite, L2 1M") == "Chip, Lite");
    CHECK(host_processor("Chip, Low power") == "Chip, Low power");

    std::string dir = temp_dir();
    std::string db = dir + "/s.db";
    int status = 0;
    std::string out =
        run(sampler() + " --db " + db + " --from 40 --to 41 --per-pipeline 1" + kTiny, &status);
    INFO(out);
    REQUIRE(status == 0);
    SampleStore store(db);
    REQUIRE(store.workloads().size() == 1);
    WorkloadInfo w = store.workloads()[0];
    CHECK(machine_string_host(w.machine) == host_description());
    CHECK_NOTHROW(export_training(store, dir + "/one.jsonl", ""));

    // A store from before hosts were recorded (the same params, no host) goes with it.
    const MachineInfo params = parse_machine_string(w.machine);
    WorkloadInfo old = w;
    old.identity += ":old";
    old.machine = machine_string(params);
    store.upsert_workload(old);
    REQUIRE(store.workloads().size() == 2);
    CHECK_NOTHROW(export_training(store, dir + "/old.jsonl", ""));
    // Resuming or judging against that store on this machine finds the old workload; a
    // workload recorded with its host is found as it is.
    WorkloadInfo hosted = old;
    hosted.machine = w.machine;
    std::optional<WorkloadInfo> found = find_recorded_workload(store, hosted);
    REQUIRE(found);
    CHECK(found->machine == old.machine);
    REQUIRE(find_recorded_workload(store, w));
    CHECK(find_recorded_workload(store, w)->id == w.id);

    // The same processor described with other caches (a VM guest lists them on some days
    // only) goes with it too.
    WorkloadInfo caches = old;
    caches.identity += ":caches";
    caches.machine = machine_string(params, host_processor(host_description()) + ", L1d 99K");
    store.upsert_workload(caches);
    REQUIRE(store.workloads().size() == 3);
    CHECK_NOTHROW(export_training(store, dir + "/caches.jsonl", ""));

    // The same pipeline and params timed on another processor: a fourth workload, refused.
    w.machine = machine_string(params, "Another processor");
    store.upsert_workload(w);
    REQUIRE(store.workloads().size() == 4);
    CHECK_THROWS_WITH(export_training(store, dir + "/two.jsonl", ""),
                      Catch::Contains("4 machine kinds") && Catch::Contains("Another processor"));
}
