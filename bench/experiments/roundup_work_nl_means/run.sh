#!/usr/bin/env bash
# The nl_means A/B of docs/BENCHMARKS.md, sessions 23-24: the beam-32 pick without (base.txt)
# and with (new.txt) the RoundUp update's extra work counted, and base with each of new's three
# changes alone (only_*.txt). Replays each (checked against the bench reference) and times them
# interleaved in fresh processes. Run with nothing else on the machine. Needs build/,
# build-bench/ and a bench run directory with nl_means' reference (default build/ab-base, from
# `scripts/bench.sh --pipelines nl_means --schedulers sextant-analytical --beam 32 --out DIR`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$here/../../.." && pwd)
run=${1:-$ROOT/build/ab-base}
out=${2:-$ROOT/build/roundup-work}
libs=()
for v in base new only_diff only_weight only_lambda_0; do
    "$ROOT/bench/schedules/replay.sh" nl_means "$here/$v.txt" "$out/$v" "$run"
    libs+=("$out/$v/lib.so:nl_means_sextant_analytical")
done
"$ROOT/build-bench/tools/measure/sextant-time" --runtime "$ROOT/build-bench/tools/libsextant_bench_runtime.so" \
    --time --rounds 3 --max-runs 20 --budget 2 "${libs[@]}"
