#!/usr/bin/env bash
# The one-node Slurm test (scripts/test.sh starts the cluster with scripts/slurm_local.sh): an
# array of 4 tasks over 8 random pipelines, one task cancelled mid-way and requeued, the merge,
# and checks that every pipeline's samples are in the merged store exactly once, that merging
# again adds nothing, that the store trains, and that bad input is named. Exits 77 (skipped)
# when no local cluster runs.
# Usage: slurm_test.sh BUILD_DIR WORK_DIR
set -uo pipefail
build=$(cd "$1" && pwd) work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
export SLURM_CONF=${SLURM_CONF:-/tmp/sextant-slurm/slurm.conf}
if ! command -v sinfo >/dev/null || ! sinfo -h -o %t 2>/dev/null | grep -qE 'idle|mix|alloc'; then
    echo "no local Slurm cluster (scripts/slurm_local.sh start): skipped"
    exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
db=$work/main.db shards=$work/shards
export SX_BUILD_DIR=$build
per=3
out=$("$root/scripts/slurm_sample.sh" --db "$db" --shards "$shards" --from 0 --to 8 --tasks 4 \
      -- --per-pipeline $per --repeats 3 --run-budget 0.3 --max-stages 5 --jobs 1 --threads 1 \
         --parallelism 1) || fail "submission failed: $out"
echo "$out"
array=$(sed -n 's/^array job \([0-9]*\):.*/\1/p' <<<"$out")
merge=$(sed -n 's/^merge job \([0-9]*\) .*/\1/p' <<<"$out")
[ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in: $out"

records() { python3 -c 'import sqlite3, sys
try:
    print(sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True).execute("SELECT count(*) FROM records").fetchone()[0])
except Exception:
    print(0)' "$1"; }
# Task 1, cancelled once it has stored something and before it is done, then requeued.
cancelled=0
for _ in $(seq 1 600); do
    n=$(records "$shards/shard-1.db")
    state=$(squeue -h -j "${array}_1" -o %t 2>/dev/null)
    if [ "$state" = R ] && [ "$n" -ge 1 ] && [ "$n" -lt $((2 * per)) ]; then
        scancel "${array}_1"
        cancelled=$n
        break
    fi
    [ -z "$state" ] && [ "$n" -ge $((2 * per)) ] && break # finished before it could be cancelled
    sleep 0.5
done
[ "$cancelled" -ge 1 ] || fail "task 1 finished or never started before it could be cancelled"
for _ in $(seq 1 40); do
    [ "$(squeue -h -j "${array}_1" -o %t 2>/dev/null)" = R ] || break
    sleep 0.5
done
echo "cancelled task 1 with $cancelled of its $((2 * per)) records stored; requeueing it"
scontrol requeue "${array}_1" || fail "scontrol requeue failed"
# Slurm holds a requeued job back for about two minutes; the merge waits for it.
for _ in $(seq 1 1200); do
    [ -z "$(squeue -h -j "$merge" -o %i 2>/dev/null)" ] && break
    sleep 1
done
[ -z "$(squeue -h -j "$merge" -o %i 2>/dev/null)" ] || fail "the merge job did not end"
cat "$shards/merge.log"
grep -q "merged 4 shards into" "$shards/merge.log" || fail "the merge did not run"
grep -q "Restarts=1" <(scontrol show job "${array}_1" 2>/dev/null) ||
    echo "(note: task 1's restart count is no longer shown)"

# Every pipeline once, with all its samples, no record twice.
python3 - "$db" "$per" <<'PY' || fail "the merged store is incomplete or has duplicates"
import sqlite3, sys, re
c = sqlite3.connect(sys.argv[1])
per = int(sys.argv[2])
seeds = {}
for wid, ident in c.execute("SELECT id, identity FROM workloads"):
    s = int(re.search(r"seed=(\d+)", ident).group(1))
    seeds.setdefault(s, []).append(wid)
ok = sorted(seeds) == list(range(8)) and all(len(v) == 1 for v in seeds.values())
for s, (wid,) in sorted(seeds.items()):
    n, distinct = c.execute("SELECT count(*), count(DISTINCT schedule_hash) FROM records "
                            "WHERE workload_id=?", (wid,)).fetchone()
    print(f"seed {s}: {n} records, {distinct} distinct")
    ok &= n == distinct == per
sys.exit(0 if ok else 1)
PY
again=$("$root/scripts/slurm_sample.sh" --merge --db "$db" --shards "$shards" | tail -1)
[[ "$again" == *": 0 new records" ]] || fail "merging again added records: $again"

# The merged store trains.
"$build/sampler/sextant-sample" --db "$db" --export-training "$work/train.jsonl" >/dev/null ||
    fail "export for training failed"
"$build/costmodel/sextant-train" --data "$work/train.jsonl" --out "$work/weights" --epochs 2 \
    >"$work/train.log" 2>&1 || { tail -5 "$work/train.log"; fail "training on the merged store failed"; }
[ -f "$work/weights/weights.sxw" ] || fail "no weights written"

# Bad input, named.
msg=$("$root/scripts/slurm_sample.sh" --db "$db" --shards "$work/s2" --from 0 --to 2 --tasks 1 \
      --partition nosuch 2>&1) && fail "a missing partition was accepted"
grep -q "no partition 'nosuch'" <<<"$msg" || fail "missing partition: $msg"
msg=$("$root/scripts/slurm_sample.sh" --db "$db" --shards /proc/sextant-shards --from 0 --to 2 \
      --tasks 1 2>&1) && fail "an unwritable shard directory was accepted"
grep -q "cannot write the shard directory" <<<"$msg" || fail "unwritable: $msg"
# No Slurm: a PATH with the basic tools but no sbatch.
mkdir -p "$work/bin"
for t in bash dirname realpath mkdir touch rm sed python3; do ln -sf "$(command -v $t)" "$work/bin/$t"; done
msg=$(PATH=$work/bin bash "$root/scripts/slurm_sample.sh" --db "$db" --shards "$work/s3" \
      --from 0 --to 2 --tasks 1 2>&1) && fail "no Slurm was accepted"
grep -q "no Slurm here: sbatch not found" <<<"$msg" || fail "no Slurm: $msg"
mkdir -p "$work/other"
cp "$shards/shard-0.db" "$work/other/shard-0.db"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("UPDATE workloads SET machine = \"cores=64;llc=1;balance=40\""); c.commit()' \
    "$work/other/shard-0.db"
msg=$("$root/scripts/slurm_sample.sh" --merge --db "$db" --shards "$work/other" 2>&1) &&
    fail "a shard from another machine kind was merged"
grep -q "measured on another machine kind" <<<"$msg" || fail "other machine: $msg"
# A store holding two machine kinds (an import around the merge's check) does not train as one.
cp "$db" "$work/mixed.db"
"$build/sampler/sextant-sample" --db "$work/other/shard-0.db" --export "$work/other.jsonl" >/dev/null
"$build/sampler/sextant-sample" --db "$work/mixed.db" --import "$work/other.jsonl" >/dev/null
msg=$("$build/sampler/sextant-sample" --db "$work/mixed.db" --export-training "$work/mixed.jsonl" 2>&1) &&
    fail "a store of two machine kinds was exported for training"
grep -q "holds samples of 2 machine kinds" <<<"$msg" || fail "mixed kinds: $msg"
# --import repeats: both files' records land in one store, in one command.
"$build/sampler/sextant-sample" --db "$db" --export "$work/merged.jsonl" >/dev/null
msg=$("$build/sampler/sextant-sample" --db "$work/two.db" --import "$work/merged.jsonl" \
      --import "$work/other.jsonl")
[[ $(grep -c "^imported [0-9]* new records" <<<"$msg") == 2 ]] || fail "two imports: $msg"
python3 - "$work/two.db" "$db" <<'PY' || fail "two imports: the store misses records"
import sqlite3, sys
def count(path):
    return sqlite3.connect(path).execute("SELECT count(*) FROM records").fetchone()[0]
# The other file is shard 0 of the same seeds, re-labelled another machine: a workload of its own.
sys.exit(0 if count(sys.argv[1]) > count(sys.argv[2]) else 1)
PY
# Autotuning on the cluster: each build and each timing an srun step (timings --exclusive).
ctl_log=$(dirname "$SLURM_CONF")/log/slurmctld.log
before=$(grep -c "_slurm_rpc_allocate_resources" "$ctl_log" 2>/dev/null || echo 0)
"$build/tools/sextant-autotune" --generator "$build/test/integration/sextant_test_generators" \
    -g with_estimates --dir "$work/autotune" --machine-params 2,16777216,40 --batches 1 \
    --candidates 4 --measure 2 --explore 1 --epochs 0 --repeats 1 --min-time 0.01 --beam 4 \
    --passes 2 --final-top 0 --quiet --slurm "$(sinfo -h -o %P | tr -d '*' | head -1)" \
    >"$work/autotune.log" 2>&1 || { tail -5 "$work/autotune.log"; fail "autotune --slurm failed"; }
after=$(grep -c "_slurm_rpc_allocate_resources" "$ctl_log" 2>/dev/null || echo 0)
[ $((after - before)) -ge 6 ] || fail "autotune --slurm ran $((after - before)) Slurm steps, expected builds, links and timings (>= 6)"
[ -f "$work/autotune/best.schedule.h" ] || fail "autotune --slurm wrote no best schedule"
echo "autotune --slurm: $((after - before)) Slurm allocations (builds, links, timings)"
echo "slurm test passed"
