#!/usr/bin/env bash
# check_outputs.sh PIPELINE REF.txt TEST.txt... : builds a bench pipeline once per ScheduleText
# (SEXTANT_SCHEDULE_FILE, the bench target and machine params), saves the outputs of REF's build
# (the same seeded inputs every time) and checks each TEST's against them (rtol 1e-4). Needs
# only build/ (no bench run or reference.bin, unlike replay.sh): for an autotuned schedule
# against a schedule already checked, e.g. bench/schedules/known/PIPELINE.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -ge 3 ]] || { sed -n 2,6p "$0"; exit 2; }
p=$1; shift
B=$ROOT/build
target=${SEXTANT_BENCH_TARGET:-x86-64-linux-avx-avx2-f16c-fma-sse41}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
i=0
for t in "$@"; do
    mkdir -p "$work/$i"
    SEXTANT_SCHEDULE_FILE=$(realpath "$t") "$B/bench/sextant_bench_generators" -g "$p" -o "$work/$i" \
        -f pipeline -e object -p "$B/plugin/libautoschedule_sextant.so" -s Sextant auto_schedule=true \
        "target=$target-no_runtime" machine_params=2,16777216,40 >"$work/$i/gen.log" 2>&1 ||
        { echo "check_outputs.sh: the generator failed for $t:" >&2; tail -5 "$work/$i/gen.log" >&2; exit 1; }
    c++ -shared -o "$work/$i/lib.so" "$work/$i/pipeline.o"
    i=$((i + 1))
done
rt=(--runtime "$B/bench/libsextant_bench_runtime.so")
"$B/measure/sextant-time" "${rt[@]}" --save-ref "$work/ref.bin" "$work/0/lib.so:pipeline" >/dev/null
status=0
for ((j = 1; j < i; j++)); do
    echo -n "${@:j+1:1}: "
    "$B/measure/sextant-time" "${rt[@]}" --check "$work/ref.bin" --rtol 1e-4 "$work/$j/lib.so:pipeline" || status=1
done
exit $status
