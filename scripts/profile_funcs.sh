#!/usr/bin/env bash
# Per-Func times of one schedule of a bench pipeline, from Halide's own profiler: builds the
# pipeline with `target=...-profile` (the runtime included), runs it 60 times in one process
# and prints the profiler's report (time and share per Func, allocations, peak memory).
#
#   scripts/profile_funcs.sh PIPELINE SCHEDULE OUTDIR
#
# SCHEDULE: a ScheduleText file (replayed by the plugin, SEXTANT_SCHEDULE_FILE), `sextant`
# (today's search), `expert` (bench/schedules/expert), `adams2019` or `mullapudi2016`.
# One process, so the figures attribute time within a schedule; comparing two schedules
# still needs `sextant-autotune --remeasure` (fresh processes, interleaved). The target is
# the host's with avx512_sapphirerapids removed, or $SEXTANT_PROFILE_TARGET.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
[[ $# -eq 3 ]] || { sed -n 2,11p "$0" >&2; exit 2; }
p=$1 sch=$2 out=$3
gen=$BUILD/bench/sextant_bench_generators
[[ -x $gen ]] || { echo "profile_funcs.sh: no $gen (build the bench generators first)" >&2; exit 1; }
target=${SEXTANT_PROFILE_TARGET:-$(grep -o '^SEXTANT_HOST_TARGET:[A-Z]*=.*' "$BUILD/CMakeCache.txt" | cut -d= -f2-)}
[[ -n $target ]] || { echo "profile_funcs.sh: no SEXTANT_HOST_TARGET in $BUILD/CMakeCache.txt" >&2; exit 1; }
mkdir -p "$out"
env_args=() plugin_args=()
case $sch in
    sextant) plugin_args=(-p "$BUILD/plugin/libautoschedule_sextant.so" -s Sextant) ;;
    expert) env_args=(SEXTANT_BENCH_PIPELINE="$p")
            plugin_args=(-p "$BUILD/bench/libautoschedule_benchexpert.so" -s BenchExpert) ;;
    adams2019|mullapudi2016)
            # Debian's libhalide14-0-dev keeps the plugins where scripts/bench.sh finds them.
            lib=$(ls /usr/lib/x86_64-linux-gnu/halide14/libautoschedule_$sch.so* 2>/dev/null | head -1)
            [[ -n $lib ]] || { echo "profile_funcs.sh: no libautoschedule_$sch.so" >&2; exit 1; }
            name=$([[ $sch == adams2019 ]] && echo Adams2019 || echo Mullapudi2016)
            plugin_args=(-p "$lib" -s "$name") ;;
    *) [[ -f $sch ]] || { echo "profile_funcs.sh: no schedule file '$sch'" >&2; exit 2; }
       env_args=(SEXTANT_SCHEDULE_FILE="$(realpath "$sch")")
       plugin_args=(-p "$BUILD/plugin/libautoschedule_sextant.so" -s Sextant) ;;
esac
fn=${p}_profiled
env "${env_args[@]}" "$gen" -g "$p" -f "$fn" -o "$out" -e object "${plugin_args[@]}" \
    auto_schedule=true machine_params=2,16777216,40 "target=$target-profile" >"$out/gen.log" 2>&1 ||
    { echo "profile_funcs.sh: the generator failed:" >&2; tail -5 "$out/gen.log" >&2; exit 1; }
g++ -shared -o "$out/lib.so" "$out/$fn.o" -lpthread -ldl
"$BUILD/measure/sextant-time" --time-one --min-runs 60 --max-runs 60 "$out/lib.so:$fn" 2>&1 |
    tee "$out/profile.txt"
