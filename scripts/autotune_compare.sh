#!/usr/bin/env bash
# Autotuning with model-picked measurements vs the plain loop (measure every candidate), on
# bench pipelines, in one run: for each pipeline both loops run in their own work directory,
# then autotune_compare.py prints, per pipeline, the untuned schedule's runtime, the best each
# loop found, and the measurements each needed to come within 5% of the best either found.
#
# Usage: scripts/autotune_compare.sh [--pipelines a,b,c] [--out DIR] [--model-batches N]
#            [--plain-batches N] [--minutes M] [--candidates N] [--measure K]
# Resumable: rerun the same command and each loop goes on from where it stopped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
pipelines=unsharp_mask,harris,bilateral_grid
out=$root/build/autotune-compare
model_batches=8
plain_batches=3
minutes=20
candidates=16
measure=4
while [ $# -gt 0 ]; do
    case "$1" in
    --pipelines) pipelines=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --model-batches) model_batches=$2; shift 2 ;;
    --plain-batches) plain_batches=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --candidates) candidates=$2; shift 2 ;;
    --measure) measure=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
"$root/scripts/setup.sh" --target sextant_bench_generators sextant-autotune >/dev/null
gen=$build/bench/sextant_bench_generators
mp="$(nproc),16777216,40"
IFS=, read -ra pipe_list <<<"$pipelines"
for p in "${pipe_list[@]}"; do
    echo "=== $p: model-picked ($model_batches batches of $measure of $candidates)" >&2
    "$build/tools/sextant-autotune" --generator "$gen" -g "$p" --dir "$out/$p/model" \
        --machine-params "$mp" --select model --batches "$model_batches" --minutes "$minutes" \
        --candidates "$candidates" --measure "$measure"
    echo "=== $p: plain loop ($plain_batches batches, every candidate)" >&2
    "$build/tools/sextant-autotune" --generator "$gen" -g "$p" --dir "$out/$p/plain" \
        --machine-params "$mp" --select all --batches "$plain_batches" --minutes "$minutes" \
        --candidates "$candidates"
    # Final figures: the untuned schedule and each loop's best, rebuilt and timed interleaved
    # in one run, so that drifts of this shared machine between the runs above cancel out.
    base=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("baseline") and "runtime_seconds" in j: print(j["hash"]); break' "$out/$p/model/measurements.jsonl")
    echo "=== $p: re-measuring untuned, model-picked best, plain best interleaved" >&2
    "$build/tools/sextant-autotune" --generator "$gen" -g "$p" --dir "$out/$p/verify" \
        --machine-params "$mp" --rounds 7 --quiet \
        --remeasure "$out/$p/model/schedules/$base.txt,$out/$p/model/best.txt,$out/$p/plain/best.txt"
done
python3 "$root/scripts/autotune_compare.py" "$out" "${pipe_list[@]}" | tee "$out/summary.md"
