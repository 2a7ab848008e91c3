#!/usr/bin/env bash
# The main job: installs what is missing, builds Sextant, autoschedules the example pipeline
# (unsharp mask, examples/unsharp) with it, prints the schedule, checks its output against
# Halide's default schedule's, and times both as a user times a schedule: each in fresh
# processes with the default allocator, interleaved over rounds (sextant-time, docs/MEASURING.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" --target unsharp_generator autoschedule_sextant sextant-time
ex="$build/examples/unsharp"
out=${SX_DEMO_OUT:-$(mktemp -d)}
trap 'rm -rf "$out"' EXIT
echo
echo "== Autoscheduling examples/unsharp with Sextant (-p libautoschedule_sextant.so -s Sextant)"
start=$(date +%s.%N)
SEXTANT_DEBUG=1 SEXTANT_DUMP_SCHEDULE="$out/unsharp_demo.txt" "$ex/unsharp_generator" -g unsharp_mask -o "$out" -f unsharp_demo \
    -e static_library,h,schedule -p "$build/plugin/libautoschedule_sextant.so" -s Sextant \
    "target=$(grep -m1 '^SEXTANT_HOST_TARGET:' "$build/CMakeCache.txt" | cut -d= -f2)" auto_schedule=true "machine_params=$(nproc),16777216,40"
end=$(date +%s.%N)
printf 'autoscheduling + compiling took %.1f s\n' "$(echo "$end - $start" | bc -l 2>/dev/null || python3 -c "print($end-$start)")"
echo
echo "== The schedule ($out/unsharp_demo.schedule.h, also built into $ex/unsharp_sextant.schedule.h)"
sed -n '/Decisions/,$p' "$out/unsharp_demo.schedule.h"
echo
echo "== Benchmark: Halide's default schedule vs Sextant's"
target=$(grep -m1 '^SEXTANT_HOST_TARGET:' "$build/CMakeCache.txt" | cut -d= -f2)
# Each schedule as a shared object without the runtime, the runtime once, as a user links them.
"$ex/unsharp_generator" -r unsharp_runtime -o "$out" -e object "target=$target"
c++ -shared -o "$out/runtime.so" "$out/unsharp_runtime.o"
"$ex/unsharp_generator" -g unsharp_mask -o "$out" -f unsharp_default -e object \
    "target=$target-no_runtime"
SEXTANT_SCHEDULE_FILE="$out/unsharp_demo.txt" \
    "$ex/unsharp_generator" -g unsharp_mask -o "$out" -f unsharp_sextant -e object \
    -p "$build/plugin/libautoschedule_sextant.so" -s Sextant "target=$target-no_runtime" \
    auto_schedule=true "machine_params=$(nproc),16777216,40"
for s in default sextant; do c++ -shared -o "$out/$s.so" "$out/unsharp_$s.o"; done
time_tool=("$build/measure/sextant-time" --runtime "$out/runtime.so")
"${time_tool[@]}" --save-ref "$out/ref.bin" "$out/default.so:unsharp_default" >/dev/null
"${time_tool[@]}" --check "$out/ref.bin" "$out/sextant.so:unsharp_sextant" |
    python3 -c 'import json, sys; j = json.loads(sys.stdin.read()); print("output check:", j["summary"]); sys.exit(j["mismatches"] != 0)'
"${time_tool[@]}" --time --rounds "${SX_DEMO_REPS:-3}" "$out/default.so:unsharp_default" \
    "$out/sextant.so:unsharp_sextant" > "$out/times.jsonl"
python3 - "$out/times.jsonl" <<'PY'
import json, sys
best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    name = "Halide default" if r["pipeline"].endswith("unsharp_default") else "Sextant"
    if "min_ms" not in r:
        sys.exit(f"{name}: {r.get('error', 'failed')}")
    best[name] = r
for name, r in best.items():
    print(f"{name:>15}: {r['min_ms']:8.2f} ms min, {r['median_ms']:.2f} ms median "
          f"({r['rounds']} interleaved rounds of fresh processes)")
print(f"Sextant's schedule runs {best['Halide default']['min_ms'] / best['Sextant']['min_ms']:.1f}x "
      "as fast as Halide's default (min of each, one run)")
PY
