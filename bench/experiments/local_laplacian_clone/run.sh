#!/usr/bin/env bash
# The session-19 hand experiment on local_laplacian's allocator trap (docs/BENCHMARKS.md,
# "Session 19"): a copy of the bench generator whose schedule() applies a Sextant .schedule.h of
# the bench and then edits it, built into shared objects, checked against the bench reference
# and timed with the timing protocol (fresh processes, default allocator vs trap off,
# interleaved).
#
#   bench/experiments/local_laplacian_clone/run.sh BENCH_CELL_DIR OUT_DIR [--no-time]
#
# BENCH_CELL_DIR: a bench run's local_laplacian/sextant-analytical (its .schedule.h and lib.so;
# the reference is ../reference.bin). Needs build-bench/tools (scripts/bench.sh builds it).
# Variants: as-emitted (the cell's lib.so), gray (gray inline), clone (g_pyr_1 cloned into
# g_pyr_2_dx, the original and out_up_0_ux in output's strip), clone_gray (both).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
CELL=$(cd "$1" && pwd) OUT=$2 TIME=${3:-}
TOOLS=$ROOT/build-bench/tools
# The bench run's own target (bench.sh resolved it from the host), as bench/schedules/replay.sh.
TARGET=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["target"])' \
    "$CELL/../../config.json")-no_runtime
mkdir -p "$OUT" && cd "$OUT"
SCHED=$(ls "$CELL"/*.schedule.h)
FN=$(basename "$SCHED" .schedule.h)
python3 "$HERE/make_variants.py" "$ROOT/bench/generators/local_laplacian.cpp" "$SCHED" "$FN" .
specs=("$CELL/lib.so:$FN")
for v in gray clone clone_gray; do
    c++ -O1 -std=c++17 -I"$HERE" -I. $(pkg-config --cflags halide14 2>/dev/null || echo -I/usr/include/halide14) \
        "gen_$v.cpp" /usr/src/halide14/GenGen.cpp -o "gen_$v" -lHalide14 -lpthread -ldl
    mkdir -p "$v"
    "./gen_$v" -g llexp -f "ll_$v" -o "$v" -e object target=$TARGET
    c++ -shared -o "$v/lib.so" "$v/ll_$v.o"
    "$TOOLS/measure/sextant-time" --runtime "$TOOLS/libsextant_bench_runtime.so" \
        --check "$CELL/../reference.bin" "$v/lib.so:ll_$v"
    specs+=("$v/lib.so:ll_$v")
done
[[ $TIME == --no-time ]] && exit 0
"$TOOLS/measure/sextant-time" --runtime "$TOOLS/libsextant_bench_runtime.so" --time --rounds 2 \
    --variant default --variant trapoff:MALLOC_TRIM_THRESHOLD_=1000000000,MALLOC_TOP_PAD_=268435456 \
    --max-runs 8 --budget 3 "${specs[@]}" | tee timing.jsonl
