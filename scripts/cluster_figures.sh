#!/usr/bin/env bash
# cluster_figures.sh: the throughput figures of docs/CLUSTER.md, measured on this machine.
#
#   scripts/cluster_figures.sh [--from A --to B] [--dir DIR] [-- sextant-sample options...]
#
# Samples the same seeds three ways, one after another, each into a fresh store: a plain
# sextant-sample run, then scripts/slurm_sample.sh with 1 and with 2 array tasks on the
# one-node cluster of scripts/slurm_local.sh (started if it is not running, stopped again if
# this script started it). Prints, per way, the records stored, the wall time from start to
# merged store, samples per hour, and the time Slurm added over the plain run; the per-task
# logs under DIR say how long each task's sextant-sample ran. Run it on an idle machine:
# all three time schedules. Defaults: seeds [300, 310), --per-pipeline 3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
sample=$build/sampler/sextant-sample
from=300 to=310 dir=/tmp/sextant-cluster-figures
extra=(--per-pipeline 3)
while [ $# -gt 0 ]; do
    case "$1" in
    --from) from=$2; shift 2 ;;
    --to) to=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) sed -n 2,13p "$0" >&2; exit 2 ;;
    esac
done
[ -x "$sample" ] || { echo "cluster_figures: no sextant-sample at $sample (scripts/setup.sh)" >&2; exit 1; }
export SLURM_CONF=${SLURM_CONF:-/tmp/sextant-slurm/slurm.conf}
started=0
if ! "$root/scripts/slurm_local.sh" status >/dev/null 2>&1; then
    "$root/scripts/slurm_local.sh" start
    started=1
fi
cleanup() { [ "$started" = 1 ] && "$root/scripts/slurm_local.sh" stop || true; }
trap cleanup EXIT

rm -rf "$dir"
mkdir -p "$dir"
records() {
    python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM records WHERE error IS NULL").fetchone()[0])' "$1" 2>/dev/null || echo 0
}
now() { date +%s.%N; }

echo "plain sextant-sample, seeds [$from, $to): ${extra[*]}"
t0=$(now)
"$sample" --db "$dir/plain.db" --from "$from" --to "$to" --quiet "${extra[@]}" >"$dir/plain.log" 2>&1
plain_s=$(echo "$(now) - $t0" | bc)
plain_n=$(records "$dir/plain.db")
printf 'way\trecords\twall_s\tsamples_per_h\tover_plain_s\n' >"$dir/figures.tsv"
printf 'plain\t%s\t%.1f\t%.0f\t0\n' "$plain_n" "$plain_s" "$(echo "$plain_n * 3600 / $plain_s" | bc -l)" >>"$dir/figures.tsv"

for tasks in 1 2; do
    echo "slurm_sample.sh --tasks $tasks"
    t0=$(now)
    "$root/scripts/slurm_sample.sh" --db "$dir/slurm$tasks.db" --shards "$dir/shards$tasks" \
        --from "$from" --to "$to" --tasks "$tasks" --wait -- "${extra[@]}" >"$dir/slurm$tasks.log" 2>&1
    s=$(echo "$(now) - $t0" | bc)
    n=$(records "$dir/slurm$tasks.db")
    printf 'slurm-%s-tasks\t%s\t%.1f\t%.0f\t%.1f\n' "$tasks" "$n" "$s" "$(echo "$n * 3600 / $s" | bc -l)" \
        "$(echo "$s - $plain_s" | bc)" >>"$dir/figures.tsv"
done
column -t "$dir/figures.tsv"
for f in "$dir"/plain.log "$dir"/shards*/task-*.log; do
    echo "$f: $(grep -h '^measured' "$f" | tail -1)"
    grep -h '^time:' "$f" | tail -1 | sed 's/^/    /'
done
