// SampleStore: round trip, UNIQUE(workload, schedule hash), schema checks, JSONL export/import.
#include "sampler/SampleStore.h"
#include "support/Errors.h"

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace sextant;

namespace {

/** A fresh path in a new temporary directory. */
std::string temp_path(const std::string &name) {
    char dir[] = "/tmp/sextant-store-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    return std::string(dir) + "/" + name;
}

WorkloadInfo workload(const std::string &identity) {
    WorkloadInfo w;
    w.kind = "random";
    w.identity = identity;
    w.target = "x86-64-linux-avx2";
    w.machine = "cores=2;llc=33554432;balance=40";
    w.options = "{\"seed\":17}";
    w.sextant_version = "0.1.0";
    w.featurizer_version = 1;
    return w;
}

SampleRecord ok_record(int64_t wid, const std::string &text, double min_s) {
    SampleRecord r;
    r.workload_id = wid;
    r.schedule_text = text;
    r.source = "beam";
    r.runtime_min_s = min_s;
    r.runtime_median_s = min_s * 1.5;
    r.repeats = 5;
    r.compile_s = 0.25;
    r.featurizer_version = 1;
    r.minflt_per_run = 42.5;
    return r;
}

SampleRecord failed_record(int64_t wid, const std::string &text) {
    SampleRecord r;
    r.workload_id = wid;
    r.schedule_text = text;
    r.source = "dropout:50:3";
    r.error = "crash: signal 11 (Segmentation fault)";
    r.featurizer_version = 1;
    return r;
}

} // namespace

TEST_CASE("schedule_hash is 16 hex digits and stable", "[store]") {
    CHECK(schedule_hash("") == "cbf29ce484222325");
    CHECK(schedule_hash("a") == "af63dc4c8601ec8c");
    CHECK(schedule_hash("func f root\n") != schedule_hash("func f inline\n"));
}

TEST_CASE("store round-trips workloads and records", "[store]") {
    std::string path = temp_path("s.db");
    int64_t wid = 0, rid = 0;
    {
        SampleStore s(path);
        wid = s.upsert_workload(workload("random:seed=17:gen=1:h=00"));
        CHECK(wid > 0);
        CHECK(s.upsert_workload(workload("random:seed=17:gen=1:h=00")) == wid);
        rid = s.add_record(ok_record(wid, "sextant-schedule 1\nfunc f root\n", 1.25e-3));
        CHECK(rid > 0);
        CHECK(s.add_record(failed_record(wid, "sextant-schedule 1\nfunc f inline\n")) > 0);
    }
    SampleStore s(path); // reopened: the schema version check passes
    std::optional<WorkloadInfo> w = s.find_workload(
        "random:seed=17:gen=1:h=00", "x86-64-linux-avx2", "cores=2;llc=33554432;balance=40");
    REQUIRE(w);
    CHECK(w->id == wid);
    CHECK(w->kind == "random");
    CHECK(w->options == "{\"seed\":17}");
    CHECK(w->sextant_version == "0.1.0");
    CHECK(w->featurizer_version == 1);
    CHECK(w->created.size() == 24); // 2026-01-01T00:00:00.000Z
    CHECK_FALSE(s.find_workload("random:seed=18:gen=1:h=00", w->target, w->machine));

    std::vector<SampleRecord> rs = s.records(wid);
    REQUIRE(rs.size() == 2);
    CHECK(rs[0].id == rid);
    CHECK(rs[0].schedule_text == "sextant-schedule 1\nfunc f root\n");
    CHECK(rs[0].schedule_hash == schedule_hash(rs[0].schedule_text));
    CHECK(rs[0].source == "beam");
    CHECK(rs[0].runtime_min_s == 1.25e-3);
    CHECK(rs[0].runtime_median_s == 1.25e-3 * 1.5);
    CHECK(rs[0].repeats == 5);
    CHECK(rs[0].compile_s == 0.25);
    CHECK(rs[0].minflt_per_run == 42.5);
    CHECK_FALSE(rs[1].minflt_per_run);
    CHECK(rs[0].ok());
    CHECK_FALSE(rs[1].ok());
    CHECK(*rs[1].error == "crash: signal 11 (Segmentation fault)");
    CHECK_FALSE(rs[1].runtime_min_s);
    CHECK(s.has_record(wid, rs[1].schedule_hash));
    CHECK_FALSE(s.has_record(wid, schedule_hash("other")));

    StoreCounts c = s.counts();
    CHECK(c.workloads == 1);
    CHECK(c.records == 2);
    CHECK(c.failed == 1);
    CHECK(s.integrity_check() == "ok");
}

TEST_CASE("the same schedule of a workload is stored once", "[store]") {
    SampleStore s(temp_path("s.db"));
    int64_t a = s.upsert_workload(workload("random:seed=1:gen=1:h=aa"));
    int64_t b = s.upsert_workload(workload("random:seed=2:gen=1:h=bb"));
    std::string text = "sextant-schedule 1\nfunc g root\n";
    CHECK(s.add_record(ok_record(a, text, 1e-3)) > 0);
    CHECK(s.add_record(ok_record(a, text, 2e-3)) == 0); // duplicate: ignored
    CHECK(s.add_record(ok_record(b, text, 3e-3)) > 0);  // another workload: kept
    CHECK(s.count_records(a) == 1);
    CHECK(s.records(a)[0].runtime_min_s == 1e-3); // the first measurement stays
    CHECK(s.counts().records == 2);
}

TEST_CASE("a record has a runtime or an error, never both or neither", "[store]") {
    SampleStore s(temp_path("s.db"));
    int64_t w = s.upsert_workload(workload("random:seed=1:gen=1:h=aa"));
    SampleRecord both = ok_record(w, "x", 1e-3);
    both.error = "boom";
    CHECK_THROWS_AS(s.add_record(both), UserError);
    SampleRecord neither = ok_record(w, "y", 1e-3);
    neither.runtime_min_s.reset();
    CHECK_THROWS_AS(s.add_record(neither), UserError);
    WorkloadInfo bad = workload("z");
    bad.kind = "other";
    CHECK_THROWS_AS(s.upsert_workload(bad), UserError);
}

TEST_CASE("open refuses another schema version and foreign databases", "[store]") {
    std::string path = temp_path("s.db");
    { SampleStore s(path); }
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "UPDATE meta SET value='99' WHERE key='schema_version'", nullptr,
                         nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    try {
        SampleStore s(path);
        FAIL("opened a version-99 store");
    } catch (const UserError &e) {
        std::string msg = e.what();
        CHECK(msg.find("schema version 99") != std::string::npos);
        CHECK(msg.find(path) != std::string::npos);
    }

    std::string foreign = temp_path("other.db");
    REQUIRE(sqlite3_open(foreign.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    CHECK_THROWS_WITH(SampleStore(foreign), Catch::Contains("not a Sextant sample store"));

    std::string text = temp_path("text.db");
    std::ofstream(text) << "this is not a database, just some text long enough to fail the "
                           "header check of SQLite's file format detection\n";
    CHECK_THROWS_WITH(SampleStore(text), Catch::Contains("cannot read it as a SQLite database"));
}

TEST_CASE("a version-1 store gains the page-fault column and keeps its records", "[store]") {
    // Version 1 had no minflt_per_run: opening one adds the column, empty for its records.
    std::string path = temp_path("v1.db");
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    const char *v1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1'), ('created', '2026-11-01T00:00:00.000Z');
CREATE TABLE workloads(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, identity TEXT NOT NULL,
    target TEXT NOT NULL, machine TEXT NOT NULL, options TEXT NOT NULL DEFAULT '{}',
    sextant_version TEXT NOT NULL, featurizer_version INTEGER NOT NULL, created TEXT NOT NULL,
    UNIQUE (identity, target, machine));
CREATE TABLE records(id INTEGER PRIMARY KEY, workload_id INTEGER NOT NULL REFERENCES
    workloads(id), schedule_text TEXT NOT NULL, schedule_hash TEXT NOT NULL, source TEXT NOT NULL,
    runtime_min_s REAL, runtime_median_s REAL, repeats INTEGER NOT NULL, compile_s REAL NOT NULL,
    error TEXT, featurizer_version INTEGER NOT NULL, created TEXT NOT NULL,
    UNIQUE (workload_id, schedule_hash), CHECK ((error IS NULL) = (runtime_min_s IS NOT NULL)));
INSERT INTO workloads VALUES (1, 'random', 'random:seed=5:gen=1:h=00', 'x86-64-linux-avx2',
    'cores=2', '{}', '0.1.0', 8, '2026-11-01T00:00:00.000Z');
INSERT INTO records VALUES (1, 1, 'func f root', 'h', 'beam', 0.002, 0.003, 5, 0.5, NULL, 8,
    '2026-11-01T00:00:00.000Z');
)sql";
    REQUIRE(sqlite3_exec(db, v1, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    {
        SampleStore s(path);
        std::vector<SampleRecord> rs = s.records(1);
        REQUIRE(rs.size() == 1);
        CHECK(rs[0].runtime_min_s == 0.002);
        CHECK_FALSE(rs[0].minflt_per_run);
        CHECK(s.add_record(ok_record(1, "func f inline", 1e-3)) > 0);
    }
    SampleStore s(path); // reopened at version 2
    std::vector<SampleRecord> rs = s.records(1);
    REQUIRE(rs.size() == 2);
    CHECK(rs[1].minflt_per_run == 42.5);
}

TEST_CASE("export then import reproduces the store and is idempotent", "[store]") {
    std::string dir_a = temp_path("a.db");
    SampleStore a(dir_a);
    int64_t w1 = a.upsert_workload(workload("random:seed=1:gen=1:h=aa"));
    int64_t w2 = a.upsert_workload(workload("random:seed=2:gen=1:h=bb"));
    a.upsert_workload(workload("random:seed=3:gen=1:h=cc")); // no records
    a.add_record(ok_record(w1, "s1\n", 1e-3));
    a.add_record(failed_record(w1, "s2\n"));
    a.add_record(ok_record(w2, "s3 \"quoted\"\n\ttab\n", 4.5e-6));
    std::string jsonl = dir_a + ".jsonl";
    CHECK(a.export_jsonl(jsonl) == 3);

    SampleStore b(temp_path("b.db"));
    CHECK(b.import_jsonl(jsonl) == 3);
    CHECK(b.import_jsonl(jsonl) == 0); // again: nothing new
    StoreCounts cb = b.counts();
    CHECK(cb.workloads == 3);
    CHECK(cb.records == 3);
    CHECK(cb.failed == 1);
    std::vector<WorkloadInfo> wa = a.workloads(), wb = b.workloads();
    REQUIRE(wa.size() == wb.size());
    for (size_t i = 0; i < wa.size(); i++) {
        CHECK(wb[i].identity == wa[i].identity);
        CHECK(wb[i].created == wa[i].created);
        CHECK(wb[i].options == wa[i].options);
        std::vector<SampleRecord> ra = a.records(wa[i].id), rb = b.records(wb[i].id);
        REQUIRE(ra.size() == rb.size());
        for (size_t k = 0; k < ra.size(); k++) {
            CHECK(rb[k].schedule_text == ra[k].schedule_text);
            CHECK(rb[k].schedule_hash == ra[k].schedule_hash);
            CHECK(rb[k].source == ra[k].source);
            CHECK(rb[k].runtime_min_s == ra[k].runtime_min_s);
            CHECK(rb[k].runtime_median_s == ra[k].runtime_median_s);
            CHECK(rb[k].error == ra[k].error);
            CHECK(rb[k].created == ra[k].created);
            CHECK(rb[k].minflt_per_run == ra[k].minflt_per_run);
        }
    }
    // Importing into the store it came from adds nothing either.
    CHECK(a.import_jsonl(jsonl) == 0);

    std::string bad = dir_a + ".bad.jsonl";
    std::ofstream(bad) << "{\"workload\":{\"kind\":\"random\"}}\n";
    CHECK_THROWS_WITH(b.import_jsonl(bad), Catch::Contains(bad + ":1"));
}
