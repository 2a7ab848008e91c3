#!/usr/bin/env bash
# The main job: installs what is missing, builds Sextant, autoschedules the example pipeline
# (unsharp mask, examples/unsharp) with it, prints the schedule, and benchmarks it against
# Halide's default schedule.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" --target unsharp_bench autoschedule_sextant
ex="$build/examples/unsharp"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo
echo "== Autoscheduling examples/unsharp with Sextant (-p libautoschedule_sextant.so -s Sextant)"
start=$(date +%s.%N)
SEXTANT_DEBUG=1 "$ex/unsharp_generator" -g unsharp_mask -o "$out" -f unsharp_demo \
    -e static_library,h,schedule -p "$build/plugin/libautoschedule_sextant.so" -s Sextant \
    "target=$(grep -m1 '^SEXTANT_HOST_TARGET:' "$build/CMakeCache.txt" | cut -d= -f2)" auto_schedule=true "machine_params=$(nproc),16777216,40"
end=$(date +%s.%N)
printf 'autoscheduling + compiling took %.1f s\n' "$(echo "$end - $start" | bc -l 2>/dev/null || python3 -c "print($end-$start)")"
echo
echo "== The schedule ($out/unsharp_demo.schedule.h, also built into $ex/unsharp_sextant.schedule.h)"
sed -n '/Decisions/,$p' "$out/unsharp_demo.schedule.h"
echo
echo "== Benchmark: Halide's default schedule vs Sextant's (same input, outputs compared)"
"$ex/unsharp_bench" "${SX_DEMO_REPS:-20}"
