#include "SampleStore.h"

#include "support/Errors.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <cstdio>
#include <fstream>

namespace sextant {

namespace {

const char *kSchemaSql = R"sql(
CREATE TABLE meta(
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL);
CREATE TABLE workloads(
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('random', 'user')),
    identity TEXT NOT NULL,
    target TEXT NOT NULL,
    machine TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}',
    sextant_version TEXT NOT NULL,
    featurizer_version INTEGER NOT NULL,
    created TEXT NOT NULL,
    UNIQUE (identity, target, machine));
CREATE TABLE records(
    id INTEGER PRIMARY KEY,
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    schedule_text TEXT NOT NULL,
    schedule_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    runtime_min_s REAL,
    runtime_median_s REAL,
    repeats INTEGER NOT NULL,
    compile_s REAL NOT NULL,
    error TEXT,
    featurizer_version INTEGER NOT NULL,
    created TEXT NOT NULL,
    minflt_per_run REAL,
    UNIQUE (workload_id, schedule_hash),
    CHECK ((error IS NULL) = (runtime_min_s IS NOT NULL)));
)sql";

const char *kNow = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/** A prepared statement; binds by 1-based index, finalizes on destruction. */
class Stmt {
public:
    Stmt(sqlite3 *db, const std::string &sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
            throw UserError(std::string("sample store: cannot prepare '") + sql +
                            "': " + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt &) = delete;
    Stmt &operator=(const Stmt &) = delete;

    Stmt &bind(int i, const std::string &v) {
        sqlite3_bind_text(s_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt &bind(int i, int64_t v) {
        sqlite3_bind_int64(s_, i, v);
        return *this;
    }
    Stmt &bind(int i, double v) {
        sqlite3_bind_double(s_, i, v);
        return *this;
    }
    Stmt &bind(int i, const std::optional<double> &v) {
        if (v)
            sqlite3_bind_double(s_, i, *v);
        else
            sqlite3_bind_null(s_, i);
        return *this;
    }
    Stmt &bind(int i, const std::optional<std::string> &v) {
        if (v)
            bind(i, *v);
        else
            sqlite3_bind_null(s_, i);
        return *this;
    }
    /** Steps once; true if a row is available. */
    bool step() {
        int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw UserError(std::string("sample store: ") + sqlite3_errmsg(db_));
    }
    int64_t int_col(int c) const { return sqlite3_column_int64(s_, c); }
    double real_col(int c) const { return sqlite3_column_double(s_, c); }
    bool is_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::string text_col(int c) const {
        const unsigned char *t = sqlite3_column_text(s_, c);
        return t ? std::string(reinterpret_cast<const char *>(t),
                               size_t(sqlite3_column_bytes(s_, c)))
                 : std::string();
    }

private:
    sqlite3 *db_;
    sqlite3_stmt *s_ = nullptr;
};

const char *kWorkloadCols =
    "id, kind, identity, target, machine, options, sextant_version, featurizer_version, created";
const char *kRecordCols =
    "id, workload_id, schedule_text, schedule_hash, source, runtime_min_s, "
    "runtime_median_s, repeats, compile_s, error, featurizer_version, created, minflt_per_run";

WorkloadInfo read_workload(const Stmt &s) {
    WorkloadInfo w;
    w.id = s.int_col(0);
    w.kind = s.text_col(1);
    w.identity = s.text_col(2);
    w.target = s.text_col(3);
    w.machine = s.text_col(4);
    w.options = s.text_col(5);
    w.sextant_version = s.text_col(6);
    w.featurizer_version = int(s.int_col(7));
    w.created = s.text_col(8);
    return w;
}

SampleRecord read_record(const Stmt &s) {
    SampleRecord r;
    r.id = s.int_col(0);
    r.workload_id = s.int_col(1);
    r.schedule_text = s.text_col(2);
    r.schedule_hash = s.text_col(3);
    r.source = s.text_col(4);
    if (!s.is_null(5)) r.runtime_min_s = s.real_col(5);
    if (!s.is_null(6)) r.runtime_median_s = s.real_col(6);
    r.repeats = int(s.int_col(7));
    r.compile_s = s.real_col(8);
    if (!s.is_null(9)) r.error = s.text_col(9);
    r.featurizer_version = int(s.int_col(10));
    r.created = s.text_col(11);
    if (!s.is_null(12)) r.minflt_per_run = s.real_col(12);
    return r;
}

nlohmann::json workload_json(const WorkloadInfo &w) {
    return {{"kind", w.kind},
            {"identity", w.identity},
            {"target", w.target},
            {"machine", w.machine},
            {"options", w.options},
            {"sextant_version", w.sextant_version},
            {"featurizer_version", w.featurizer_version},
            {"created", w.created}};
}

nlohmann::json record_json(const SampleRecord &r) {
    nlohmann::json j = {{"schedule_text", r.schedule_text},
                        {"schedule_hash", r.schedule_hash},
                        {"source", r.source},
                        {"repeats", r.repeats},
                        {"compile_s", r.compile_s},
                        {"featurizer_version", r.featurizer_version},
                        {"created", r.created}};
    j["runtime_min_s"] = r.runtime_min_s ? nlohmann::json(*r.runtime_min_s) : nlohmann::json();
    j["runtime_median_s"] =
        r.runtime_median_s ? nlohmann::json(*r.runtime_median_s) : nlohmann::json();
    j["error"] = r.error ? nlohmann::json(*r.error) : nlohmann::json();
    if (r.minflt_per_run) j["minflt_per_run"] = *r.minflt_per_run;
    return j;
}

/** Commits on commit(), rolls back if destroyed before. */
class Transaction {
public:
    Transaction(sqlite3 *db, bool immediate) : db_(db) {
        run(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    }
    ~Transaction() {
        if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    void commit() {
        run("COMMIT");
        done_ = true;
    }

private:
    void run(const char *sql) {
        char *err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            std::string msg = err ? err : "unknown error";
            sqlite3_free(err);
            throw UserError(std::string("sample store: ") + sql + ": " + msg);
        }
    }
    sqlite3 *db_;
    bool done_ = false;
};

} // namespace

SampleStore::SampleStore(const std::string &path) : path_(path) {
    int rc =
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw UserError("cannot open sample store '" + path + "': " + msg);
    }
    try {
        // Another process may hold the write lock for the length of one record.
        sqlite3_busy_timeout(db_, 30000);
        if (sqlite3_exec(db_, "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr) !=
            SQLITE_OK)
            fail(std::string("cannot read it as a SQLite database (") + sqlite3_errmsg(db_) +
                 "); pass a new path or an existing samples database");
        {
            Stmt s(db_, "PRAGMA journal_mode=WAL");
            std::string mode = s.step() ? s.text_col(0) : "";
            if (mode != "wal") fail("cannot switch to WAL journal mode (got '" + mode + "')");
        }
        // FULL: each commit is fsynced, so even an OS crash or power loss keeps every record
        // committed before it. A commit per measured sample (about one a second) makes the
        // fsync cost negligible; NORMAL would only survive process crashes.
        exec("PRAGMA synchronous=FULL");
        exec("PRAGMA foreign_keys=ON");
        create_or_check_schema();
    } catch (...) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

SampleStore::~SampleStore() {
    if (db_) sqlite3_close(db_);
}

void SampleStore::fail(const std::string &what) {
    throw UserError("sample store '" + path_ + "': " + what);
}

void SampleStore::exec(const std::string &sql) {
    char *err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db_);
        sqlite3_free(err);
        fail(msg);
    }
}

void SampleStore::create_or_check_schema() {
    Transaction t(db_, true);
    int64_t tables = 0;
    bool has_meta = false;
    {
        Stmt s(db_, "SELECT name FROM sqlite_master WHERE type='table'");
        while (s.step()) {
            tables++;
            if (s.text_col(0) == "meta") has_meta = true;
        }
    }
    if (tables == 0) {
        exec(kSchemaSql);
        Stmt s(db_, "INSERT INTO meta(key, value) VALUES ('schema_version', ?1), "
                    "('created', " +
                        std::string(kNow) + ")");
        s.bind(1, std::to_string(kSchemaVersion)).step();
        t.commit();
        return;
    }
    if (!has_meta)
        fail("not a Sextant sample store (it has tables but no 'meta' table); pass a new path "
             "or an existing samples database");
    std::string v;
    {
        Stmt s(db_, "SELECT value FROM meta WHERE key='schema_version'");
        v = s.step() ? s.text_col(0) : "";
    }
    if (v == "1") {
        // Version 2 adds each record's page faults per run (empty for the older records).
        exec("ALTER TABLE records ADD COLUMN minflt_per_run REAL");
        exec("UPDATE meta SET value='2' WHERE key='schema_version'");
        v = "2";
    }
    if (v != std::to_string(kSchemaVersion))
        fail("schema version " + (v.empty() ? std::string("(missing)") : v) +
             ", but this Sextant reads version " + std::to_string(kSchemaVersion) +
             ". Use the Sextant that wrote it to --export it as JSON lines, or sample into a "
             "new database.");
    t.commit();
}

int64_t SampleStore::upsert_workload(const WorkloadInfo &w) {
    if (w.kind != "random" && w.kind != "user")
        fail("workload kind must be 'random' or 'user', not '" + w.kind + "'");
    Transaction t(db_, true);
    {
        Stmt s(db_, std::string("INSERT OR IGNORE INTO workloads(kind, identity, target, machine, "
                                "options, sextant_version, featurizer_version, created) VALUES "
                                "(?1, ?2, ?3, ?4, ?5, ?6, ?7, COALESCE(NULLIF(?8, ''), ") +
                        kNow + "))");
        s.bind(1, w.kind).bind(2, w.identity).bind(3, w.target).bind(4, w.machine);
        s.bind(5, w.options.empty() ? std::string("{}") : w.options).bind(6, w.sextant_version);
        s.bind(7, int64_t(w.featurizer_version)).bind(8, w.created).step();
    }
    Stmt s(db_, "SELECT id FROM workloads WHERE identity=?1 AND target=?2 AND machine=?3");
    s.bind(1, w.identity).bind(2, w.target).bind(3, w.machine);
    if (!s.step()) fail("workload vanished after insert: " + w.identity);
    int64_t id = s.int_col(0);
    t.commit();
    return id;
}

std::optional<WorkloadInfo> SampleStore::find_workload(const std::string &identity,
                                                       const std::string &target,
                                                       const std::string &machine) {
    Stmt s(db_, std::string("SELECT ") + kWorkloadCols +
                    " FROM workloads WHERE identity=?1 AND target=?2 AND machine=?3");
    s.bind(1, identity).bind(2, target).bind(3, machine);
    if (!s.step()) return std::nullopt;
    return read_workload(s);
}

std::optional<WorkloadInfo> SampleStore::workload(int64_t id) {
    Stmt s(db_, std::string("SELECT ") + kWorkloadCols + " FROM workloads WHERE id=?1");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return read_workload(s);
}

std::vector<WorkloadInfo> SampleStore::workloads() {
    Stmt s(db_, std::string("SELECT ") + kWorkloadCols + " FROM workloads ORDER BY id");
    std::vector<WorkloadInfo> out;
    while (s.step())
        out.push_back(read_workload(s));
    return out;
}

bool SampleStore::has_record(int64_t workload_id, const std::string &hash) {
    Stmt s(db_, "SELECT 1 FROM records WHERE workload_id=?1 AND schedule_hash=?2");
    s.bind(1, workload_id).bind(2, hash);
    return s.step();
}

int64_t SampleStore::add_record(const SampleRecord &r) {
    if (r.error.has_value() == r.runtime_min_s.has_value())
        fail("a record has either a runtime or an error (source '" + r.source + "')");
    Stmt s(db_, std::string("INSERT OR IGNORE INTO records(workload_id, schedule_text, "
                            "schedule_hash, source, runtime_min_s, runtime_median_s, repeats, "
                            "compile_s, error, featurizer_version, created, minflt_per_run) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                            "COALESCE(NULLIF(?11, ''), ") +
                    kNow + "), ?12)");
    s.bind(1, r.workload_id).bind(2, r.schedule_text);
    s.bind(3, r.schedule_hash.empty() ? schedule_hash(r.schedule_text) : r.schedule_hash);
    s.bind(4, r.source).bind(5, r.runtime_min_s).bind(6, r.runtime_median_s);
    s.bind(7, int64_t(r.repeats)).bind(8, r.compile_s).bind(9, r.error);
    s.bind(10, int64_t(r.featurizer_version)).bind(11, r.created).bind(12, r.minflt_per_run);
    // A single statement outside BEGIN is its own (autocommit) transaction.
    s.step();
    return sqlite3_changes(db_) > 0 ? sqlite3_last_insert_rowid(db_) : 0;
}

std::vector<SampleRecord> SampleStore::records(int64_t workload_id) {
    Stmt s(db_,
           std::string("SELECT ") + kRecordCols + " FROM records WHERE workload_id=?1 ORDER BY id");
    s.bind(1, workload_id);
    std::vector<SampleRecord> out;
    while (s.step())
        out.push_back(read_record(s));
    return out;
}

void SampleStore::for_each_record(
    const std::function<void(const WorkloadInfo &, const SampleRecord &)> &f) {
    for (const WorkloadInfo &w : workloads())
        for (const SampleRecord &r : records(w.id))
            f(w, r);
}

StoreCounts SampleStore::counts() {
    StoreCounts c;
    Stmt s(db_, "SELECT (SELECT COUNT(*) FROM workloads), (SELECT COUNT(*) FROM records), "
                "(SELECT COUNT(*) FROM records WHERE error IS NOT NULL)");
    s.step();
    c.workloads = s.int_col(0);
    c.records = s.int_col(1);
    c.failed = s.int_col(2);
    return c;
}

int64_t SampleStore::count_records(int64_t workload_id) {
    Stmt s(db_, "SELECT COUNT(*) FROM records WHERE workload_id=?1");
    s.bind(1, workload_id).step();
    return s.int_col(0);
}

std::string SampleStore::integrity_check() {
    Stmt s(db_, "PRAGMA integrity_check");
    std::string out;
    while (s.step())
        out += (out.empty() ? "" : "\n") + s.text_col(0);
    return out;
}

int64_t SampleStore::export_jsonl(const std::string &path) {
    std::ofstream f(path, std::ios::trunc);
    if (!f) throw UserError("cannot write '" + path + "'");
    int64_t n = 0;
    // One read transaction: a consistent snapshot even while a sampler keeps writing.
    Transaction t(db_, false);
    for (const WorkloadInfo &w : workloads()) {
        nlohmann::json wj = workload_json(w);
        f << nlohmann::json{{"workload", wj}}.dump() << "\n";
        for (const SampleRecord &r : records(w.id)) {
            f << nlohmann::json{{"workload", wj}, {"record", record_json(r)}}.dump() << "\n";
            n++;
        }
    }
    t.commit();
    if (!f) throw UserError("error while writing '" + path + "'");
    return n;
}

int64_t SampleStore::import_jsonl(const std::string &path) {
    std::ifstream f(path);
    if (!f) throw UserError("cannot read '" + path + "'");
    Transaction t(db_, true);
    std::string line;
    int64_t lineno = 0, added = 0;
    while (std::getline(f, line)) {
        lineno++;
        if (line.empty()) continue;
        std::string where = path + ":" + std::to_string(lineno);
        try {
            nlohmann::json j = nlohmann::json::parse(line);
            const nlohmann::json &wj = j.at("workload");
            WorkloadInfo w;
            w.kind = wj.at("kind").get<std::string>();
            w.identity = wj.at("identity").get<std::string>();
            w.target = wj.at("target").get<std::string>();
            w.machine = wj.at("machine").get<std::string>();
            w.options = wj.value("options", std::string("{}"));
            w.sextant_version = wj.at("sextant_version").get<std::string>();
            w.featurizer_version = wj.at("featurizer_version").get<int>();
            w.created = wj.value("created", std::string());
            // upsert_workload opens its own transaction; inline the insert here instead.
            {
                Stmt s(db_, std::string("INSERT OR IGNORE INTO workloads(kind, identity, target, "
                                        "machine, options, sextant_version, featurizer_version, "
                                        "created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                                        "COALESCE(NULLIF(?8, ''), ") +
                                kNow + "))");
                s.bind(1, w.kind).bind(2, w.identity).bind(3, w.target).bind(4, w.machine);
                s.bind(5, w.options).bind(6, w.sextant_version);
                s.bind(7, int64_t(w.featurizer_version)).bind(8, w.created).step();
            }
            if (!j.contains("record")) continue;
            std::optional<WorkloadInfo> found = find_workload(w.identity, w.target, w.machine);
            if (!found) throw UserError("workload not stored");
            const nlohmann::json &rj = j.at("record");
            SampleRecord r;
            r.workload_id = found->id;
            r.schedule_text = rj.at("schedule_text").get<std::string>();
            r.schedule_hash = rj.value("schedule_hash", schedule_hash(r.schedule_text));
            r.source = rj.at("source").get<std::string>();
            if (!rj.at("runtime_min_s").is_null())
                r.runtime_min_s = rj["runtime_min_s"].get<double>();
            if (!rj.at("runtime_median_s").is_null())
                r.runtime_median_s = rj["runtime_median_s"].get<double>();
            r.repeats = rj.at("repeats").get<int>();
            r.compile_s = rj.at("compile_s").get<double>();
            if (!rj.at("error").is_null()) r.error = rj["error"].get<std::string>();
            r.featurizer_version = rj.at("featurizer_version").get<int>();
            r.created = rj.value("created", std::string());
            if (rj.contains("minflt_per_run") && !rj["minflt_per_run"].is_null())
                r.minflt_per_run = rj["minflt_per_run"].get<double>();
            if (add_record(r)) added++;
        } catch (const nlohmann::json::exception &e) {
            throw UserError(where + ": malformed sample line: " + e.what());
        } catch (const UserError &e) {
            throw UserError(where + ": " + e.what());
        }
    }
    t.commit();
    return added;
}

} // namespace sextant
