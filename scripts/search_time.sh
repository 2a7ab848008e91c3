#!/usr/bin/env bash
# Autoscheduling time of Sextant vs Adams2019 (Debian's plugin) at the same beam size, per bench
# pipeline, in one run: wall seconds and peak memory of the generator producing only the
# schedule (-e schedule), and the ratio Sextant / Adams2019.
#
# Usage: scripts/search_time.sh [--beam N] [--pipelines a,b,c] [--timeout S] [--schedulers list]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
beam=32
timeout_s=600
pipelines=""
schedulers="Sextant,Adams2019"
while [ $# -gt 0 ]; do
    case "$1" in
    --beam) beam=$2; shift 2 ;;
    --pipelines) pipelines=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --schedulers) schedulers=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
"$root/scripts/setup.sh" --target sextant_bench_generators sextant_bench_measure autoschedule_sextant >/dev/null
gen="$build/bench/sextant_bench_generators"
measure="$build/bench/sextant_bench_measure"
if [ -z "$pipelines" ]; then
    pipelines=$(grep -o 'HALIDE_REGISTER_GENERATOR([^,]*, *[a-z_0-9]*' "$root"/bench/generators/*.cpp |
        sed 's/.*, *//' | sort | paste -sd, -)
fi
declare -A plugin=(
    [Sextant]="$build/plugin/libautoschedule_sextant.so"
    [Adams2019]=/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_adams2019.so
    [Li2018]=/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_li2018.so
    [Mullapudi2016]=/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_mullapudi2016.so
)
IFS=, read -ra sched_list <<<"$schedulers"
IFS=, read -ra pipe_list <<<"$pipelines"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mp="machine_params=$(nproc),16777216,40"
target=$(grep -m1 '^SEXTANT_HOST_TARGET:' "$build/CMakeCache.txt" | cut -d= -f2)
echo "Autoscheduling time, beam $beam, $mp, target $target; $(nproc) cores, $(date -u +%F)"
printf '\n| pipeline |'
for s in "${sched_list[@]}"; do printf ' %s s | %s MiB |' "$s" "$s"; done
printf ' %s / %s |\n|---|' "${sched_list[0]}" "${sched_list[1]:-${sched_list[0]}}"
for s in "${sched_list[@]}"; do printf -- '---|---|'; done
printf -- '---|\n'
declare -a ratios=()
for p in "${pipe_list[@]}"; do
    printf '| %s |' "$p"
    declare -A secs=()
    for s in "${sched_list[@]}"; do
        out="$work/$p-$s"
        mkdir -p "$out"
        set +e
        HL_BEAM_SIZE=$beam timeout "$timeout_s" "$measure" "$out/m" "$gen" -g "$p" -o "$out" \
            -e schedule -p "${plugin[$s]}" -s "$s" "target=$target" auto_schedule=true "$mp" \
            >"$out/log" 2>&1
        rc=$?
        set -e
        if [ $rc -eq 0 ] && [ -f "$out/m" ]; then
            read -r _ wall rss <"$out/m"
            secs[$s]=$wall
            printf ' %.2f | %.0f |' "$wall" "$(echo "$rss / 1024" | bc -l)"
        else
            secs[$s]=""
            reason=$(grep -m1 -iE 'error|exception|abort|killed' "$out/log" | cut -c1-60 || true)
            [ $rc -eq 124 ] && reason="timeout ${timeout_s}s"
            printf ' FAIL (%s) | - |' "${reason:-exit $rc}"
        fi
    done
    a=${secs[${sched_list[0]}]:-}
    b=${secs[${sched_list[1]:-${sched_list[0]}}]:-}
    if [ -n "$a" ] && [ -n "$b" ]; then
        r=$(echo "$a / $b" | bc -l)
        ratios+=("$r")
        printf ' %.3f |\n' "$r"
    else
        printf ' - |\n'
    fi
    unset secs
done
if [ ${#ratios[@]} -gt 0 ]; then
    geo=$(printf '%s\n' "${ratios[@]}" | awk '{s += log($1)} END {printf "%.3f", exp(s / NR)}')
    echo
    echo "geomean ${sched_list[0]} / ${sched_list[1]:-${sched_list[0]}} autoscheduling time: $geo over ${#ratios[@]} pipelines"
fi
