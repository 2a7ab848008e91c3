#!/usr/bin/env bash
# replay.sh PIPELINE SCHEDULE.txt OUTDIR [BENCH_RUN]: builds a bench pipeline with a ScheduleText
# (SEXTANT_SCHEDULE_FILE) instead of a search, prints the analytical model's prediction and its
# allocator estimate, and checks the output against BENCH_RUN/PIPELINE/reference.bin (a
# `scripts/bench.sh --out` directory, default build/bench-s20). OUTDIR/lib.so can then be timed
# beside the bench's own libraries:
#   build-bench/tools/measure/sextant-time --runtime build-bench/tools/libsextant_bench_runtime.so \
#       --time --rounds 3 --max-runs 20 --budget 2 OUTDIR/lib.so:PIPELINE_sextant_analytical \
#       BENCH_RUN/PIPELINE/sextant-analytical/lib.so:PIPELINE_sextant_analytical
# Needs build/ (the plugin) and build-bench/ (scripts/bench.sh builds it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[[ $# -ge 3 ]] || { sed -n 2,10p "$0"; exit 2; }
p=$1 sch=$(realpath "$2") out=$3 run=${4:-$ROOT/build/bench-s20}
fn=${p}_sextant_analytical
target=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["target"])' "$run/config.json" 2>/dev/null || true)
[[ -n $target && $target != null ]] || { echo "replay.sh: no target in $run/config.json" >&2; exit 2; }
mkdir -p "$out"
env SEXTANT_SCHEDULE_FILE="$sch" SEXTANT_DEBUG=1 SEXTANT_COST_MODEL=analytical \
    "$ROOT/build-bench/tools/sextant_bench_generators" -g "$p" -f "$fn" -n "$fn" -o "$out" -t 0 \
    -e object,schedule -p "$ROOT/build/plugin/libautoschedule_sextant.so" -s Sextant \
    auto_schedule=true machine_params=2,16777216,40 "target=$target-no_runtime" >"$out/gen.log" 2>&1 ||
    { echo "replay.sh: the generator failed:" >&2; tail -5 "$out/gen.log" >&2; exit 1; }
g++ -shared -o "$out/lib.so" "$out/$fn.o"
grep -o "predicted [0-9.]* ms per run" "$out/$fn.schedule.h"
grep -o "allocator: .*" "$out/gen.log"
"$ROOT/build-bench/tools/measure/sextant-time" --runtime "$ROOT/build-bench/tools/libsextant_bench_runtime.so" \
    --timeout 300 --check "$run/$p/reference.bin" --rtol 1e-4 "$out/lib.so:$fn"
