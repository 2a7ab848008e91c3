// SampleStore: the SQLite database of measured schedules. A workload is one pipeline on one
// target and machine; a record is one schedule of a workload (its ScheduleText) with its
// measured runtime or the error that stopped the measurement. Plain data in, plain data out:
// no Halide, no Torch. Re-featurizing records is the caller's job (see TrainingExport.h).
//
// Durability: WAL journal, synchronous=FULL, and every add_record() is its own transaction,
// so a sampler killed at any moment (kill -9, power loss) loses at most the record in flight
// and never leaves the database inconsistent. Several processes may open the same file (one
// writer at a time; readers never block the writer).
#pragma once

#include "search/ScheduleText.h" // schedule_hash

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace sextant {

/** One pipeline on one target and machine; (identity, target, machine) is unique. */
struct WorkloadInfo {
    int64_t id = 0;   ///< assigned by the store
    std::string kind; ///< "random" or "user"
    /** Pipeline identity, e.g. "random:seed=17:gen=1:h=0123456789abcdef". */
    std::string identity;
    std::string target;  ///< Halide target string the schedules were compiled for
    std::string machine; ///< e.g. "cores=2;llc=33554432;balance=40"
    std::string options; ///< JSON: what rebuilds the pipeline (seed, generator options)
    std::string sextant_version;
    int featurizer_version = 0; ///< kFeatureSchemaVersion when the workload was created
    std::string created;        ///< UTC ISO-8601; set by the store when empty
};

/** One schedule of a workload and its measurement. */
struct SampleRecord {
    int64_t id = 0; ///< assigned by the store
    int64_t workload_id = 0;
    std::string schedule_text;
    std::string schedule_hash; ///< schedule_hash(schedule_text) unless set
    /** How the schedule was made: "beam", "greedy", "dropout:<percent>:<seed>", "user", ... */
    std::string source;
    /** Seconds per pipeline run: fastest and median of `repeats` runs. Empty iff error. */
    std::optional<double> runtime_min_s, runtime_median_s;
    int repeats = 0;
    double compile_s = 0; ///< JIT compile wall time (0 if it never got there)
    /** Why the measurement failed (compile error, crash signal, timeout); empty if ok. */
    std::optional<std::string> error;
    int featurizer_version = 0;
    std::string created; ///< UTC ISO-8601; set by the store when empty
    /** Minor page faults per timed run (the timed process's getrusage, over its runs): what
     * the allocator estimate predicts (docs/COSTMODEL.md, "Allocation"). Empty for records
     * measured before schema 2 and for failures. */
    std::optional<double> minflt_per_run;
    bool ok() const { return !error.has_value(); }
};

/** Counts over the whole store. */
struct StoreCounts {
    int64_t workloads = 0;
    int64_t records = 0;
    int64_t failed = 0; ///< records with an error
};

class SampleStore {
public:
    /** Version of the tables below; a file with another version is refused. */
    static constexpr int kSchemaVersion = 2;

    /** Opens (creating if needed) the store at `path`. Throws UserError if the file is not a
     * SQLite database, not a Sextant sample store, or has another schema version. */
    explicit SampleStore(const std::string &path);
    ~SampleStore();
    SampleStore(const SampleStore &) = delete;
    SampleStore &operator=(const SampleStore &) = delete;

    const std::string &path() const { return path_; }

    /** Returns the id of the workload with w's (identity, target, machine), inserting w if
     * there is none (other fields of an existing workload are left as they are). */
    int64_t upsert_workload(const WorkloadInfo &w);
    std::optional<WorkloadInfo> find_workload(const std::string &identity,
                                              const std::string &target,
                                              const std::string &machine);
    std::optional<WorkloadInfo> workload(int64_t id);
    /** Every workload, by id. */
    std::vector<WorkloadInfo> workloads();

    bool has_record(int64_t workload_id, const std::string &schedule_hash);
    /** Inserts `r` in its own transaction. Returns its id, or 0 if the workload already has a
     * record with that schedule hash (the existing record is kept). */
    int64_t add_record(const SampleRecord &r);
    /** Records of one workload, by id. */
    std::vector<SampleRecord> records(int64_t workload_id);
    /** Calls f on every record (by id) with its workload. */
    void for_each_record(const std::function<void(const WorkloadInfo &, const SampleRecord &)> &f);

    StoreCounts counts();
    int64_t count_records(int64_t workload_id);
    /** "ok" if PRAGMA integrity_check finds nothing wrong, else its report. */
    std::string integrity_check();

    /** Writes every workload and record as JSON lines (format in docs/SAMPLING.md); returns
     * the number of records written. */
    int64_t export_jsonl(const std::string &path);
    /** Reads lines written by export_jsonl; workloads and records already present are
     * skipped, so importing a file twice changes nothing. Returns records added. Throws
     * UserError naming the file and line for a malformed line. One transaction. */
    int64_t import_jsonl(const std::string &path);

private:
    void exec(const std::string &sql);
    void create_or_check_schema();
    [[noreturn]] void fail(const std::string &what);

    std::string path_;
    sqlite3 *db_ = nullptr;
};

} // namespace sextant
