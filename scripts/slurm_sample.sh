#!/usr/bin/env bash
# slurm_sample.sh: sextant-sample over a seed range as a Slurm array job, then a merge.
#
#   scripts/slurm_sample.sh --db MAIN.db --shards DIR --from A --to B --tasks N
#       [--partition P] [--exclusive] [--time HH:MM:SS] [--wait] [-- sextant-sample options...]
#   scripts/slurm_sample.sh --merge --db MAIN.db --shards DIR [--after ARRAY_JOB]
#
# Array task i measures seeds [A + i*K, A + (i+1)*K) (K = ceil((B-A)/N)) into its own store,
# DIR/shard-i.db, on storage every node sees. sextant-sample writes each measurement as it is
# made and skips what its store already holds, so a task that fails, is cancelled or is requeued
# (the array is submitted with --requeue) resumes where it stopped. A job that depends on the
# whole array (afterany) merges every shard into MAIN.db: exported and imported, de-duplicated
# by the store's keys (a pipeline's workload by identity, target and machine; a schedule by its
# hash), so merging again adds nothing. Every workload records the machine it was measured on
# (cores, last-level cache, balance) and the target; the merge refuses a shard measured on
# another machine kind than MAIN.db already holds (train on one kind at a time), naming it.
# --exclusive gives each task a node of its own (what faithful timing needs on a real cluster).
# --wait: block until the merge job ends. Prints the array and merge job ids.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
sample=$build/sampler/sextant-sample
db="" shards="" from="" to="" tasks="" partition="" exclusive="" time_limit="" merge=0 wait=0 after=""
extra=()
die() { echo "slurm_sample: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case "$1" in
    --db) db=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --to) to=$2; shift 2 ;;
    --tasks) tasks=$2; shift 2 ;;
    --partition) partition=$2; shift 2 ;;
    --exclusive) exclusive=--exclusive; shift ;;
    --time) time_limit=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    --after) after=$2; shift 2 ;;
    --wait) wait=1; shift ;;
    --) shift; extra=("$@"); break ;;
    *) sed -n 2,20p "$0" >&2; exit 2 ;;
    esac
done
[ -n "$db" ] && [ -n "$shards" ] || { sed -n 2,20p "$0" >&2; exit 2; }
[ -x "$sample" ] || die "no sextant-sample at $sample (build first: scripts/setup.sh)"
db=$(realpath -m "$db")
shards=$(realpath -m "$shards")

if [ "$merge" = 1 ]; then
    # A task requeued after the dependency was met (cancelled, then requeued) runs again later:
    # wait until no task of the array is pending or running.
    if [ -n "$after" ]; then
        while [ -n "$(squeue -h -j "$after" -o %i 2>/dev/null)" ]; do sleep 5; done
    fi
    # The machine kind of each store: its workloads' (target, machine) pairs.
    kinds() { python3 -c '
import sqlite3, sys
c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print("\n".join(sorted({"%s | %s" % r for r in c.execute("SELECT target, machine FROM workloads")})))
' "$1"; }
    shopt -s nullglob
    files=("$shards"/shard-*.db)
    [ ${#files[@]} -gt 0 ] || die "no shards in $shards"
    want=""
    [ -f "$db" ] && want=$(kinds "$db")
    for s in "${files[@]}"; do
        k=$(kinds "$s") || die "shard $s is not a sample store"
        [ -n "$k" ] || continue
        if [ -z "$want" ]; then
            want=$k
        elif [ "$(printf '%s\n%s\n' "$want" "$k" | sort -u | wc -l)" -gt "$(printf '%s\n' "$want" | sort -u | wc -l)" ]; then
            die "shard $s was measured on another machine kind ($k) than $db holds ($want); merge it into a store of its own"
        fi
    done
    total=0
    for s in "${files[@]}"; do
        "$sample" --db "$s" --export "$s.jsonl" >/dev/null
        n=$("$sample" --db "$db" --import "$s.jsonl" | sed -n 's/^imported \([0-9]*\) new records.*/\1/p')
        echo "merged $s: ${n:-0} new records"
        total=$((total + ${n:-0}))
    done
    echo "merged ${#files[@]} shards into $db: $total new records"
    exit 0
fi

[ -n "$from" ] && [ -n "$to" ] && [ -n "$tasks" ] || die "--from, --to and --tasks are required"
[ "$to" -gt "$from" ] && [ "$tasks" -ge 1 ] || die "need --to > --from and --tasks >= 1"
command -v sbatch >/dev/null || die "no Slurm here: sbatch not found (on a test machine, scripts/slurm_local.sh start)"
if [ -n "$partition" ] && [ -z "$(sinfo -h -p "$partition" -o %P 2>/dev/null)" ]; then
    die "no partition '$partition' (sinfo lists: $(sinfo -h -o %P | tr '\n' ' '))"
fi
mkdir -p "$shards" 2>/dev/null && touch "$shards/.writable" 2>/dev/null ||
    die "cannot write the shard directory $shards"
rm -f "$shards/.writable"
chunk=$(( (to - from + tasks - 1) / tasks ))
opts=(--parsable --requeue -o "$shards/task-%a.log" -J sextant-sample)
[ -n "$partition" ] && opts+=(-p "$partition")
[ -n "$exclusive" ] && opts+=("$exclusive")
[ -n "$time_limit" ] && opts+=(-t "$time_limit")
# The task's command: its slice of seeds into its own shard (resumed if it exists).
printf -v sample_args ' %q' "${extra[@]}"
array=$(sbatch "${opts[@]}" --array=0-$((tasks - 1)) --wrap "
i=\$SLURM_ARRAY_TASK_ID
a=\$(( $from + i * $chunk )); b=\$(( a + $chunk )); [ \$b -gt $to ] && b=$to
[ \$a -lt \$b ] || exit 0
exec '$sample' --db '$shards'/shard-\$i.db --from \$a --to \$b --quiet $sample_args")
merge_opts=(--parsable -o "$shards/merge.log" -J sextant-merge --dependency=afterany:$array)
[ -n "$partition" ] && merge_opts+=(-p "$partition")
[ "$wait" = 1 ] && merge_opts+=(--wait)
echo "array job $array: $tasks tasks over seeds [$from, $to), $chunk each, shards in $shards"
merge_job=$(sbatch "${merge_opts[@]}" --wrap "'$root/scripts/slurm_sample.sh' --merge --after $array --db '$db' --shards '$shards'")
echo "merge job $merge_job (after the array): into $db"
