#!/usr/bin/env bash
# The split-clamp experiment of docs/BENCHMARKS.md, session 21: replays this folder's
# ScheduleTexts (each checked against the bench reference) and times them interleaved in fresh
# processes. With the rule (`git apply featurizer.patch`, rebuild build/) the predictions move;
# the measurements do not depend on it. Needs build/, build-bench/ and a bench run (default
# build/bench-s20) for the references and Mullapudi2016's library.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$here/../../.." && pwd)
run=${1:-$ROOT/build/bench-s20}
out=${2:-$ROOT/build/split-clamp}
time_libs() {
    "$ROOT/build-bench/tools/measure/sextant-time" --runtime "$ROOT/build-bench/tools/libsextant_bench_runtime.so" \
        --time --rounds 3 --max-runs 20 --budget 2 "$@"
}
libs=()
for f in "$here"/interpolate_*.txt "$ROOT/bench/schedules/known/interpolate.txt"; do
    n=$(basename "$f" .txt)
    echo "== $n"
    "$ROOT/bench/schedules/replay.sh" interpolate "$f" "$out/$n" "$run"
    libs+=("$out/$n/lib.so:interpolate_sextant_analytical")
done
time_libs "${libs[@]}" "$run/interpolate/mullapudi2016/lib.so:interpolate_mullapudi2016"
libs=()
for f in "$here"/nl_means_*.txt; do
    n=$(basename "$f" .txt)
    echo "== $n"
    "$ROOT/bench/schedules/replay.sh" nl_means "$f" "$out/$n" "$run"
    libs+=("$out/$n/lib.so:nl_means_sextant_analytical")
done
time_libs "${libs[@]}"
