#!/usr/bin/env bash
# ctest robust.parity_load_crash: a crash autotuning hit on bench camera_pipe (docs/SEARCH.md,
# "Stack alignment on AVX-512"). Its demosaic selects on x % 2, which Halide deinterleaves into
# stride-2 loads; with `linear` computed per 16x4 tile of `demosaiced` (vectorized by 16, rows
# unrolled) those loads have constant indices, and Halide 14 gives them an alignment they do
# not have (vmovaps 8 bytes past a 32-byte boundary: SIGSEGV). Checks that the ScheduleText is
# refused naming its line, and that the same schedule with a serial loop over the tile's
# vectors is accepted and computes what the everything-at-root reference computes.
#   parity_load_crash.sh GENERATOR ROOT_PLUGIN SEXTANT_PLUGIN SEXTANT_TIME TARGET WORKDIR
set -euo pipefail
[[ $# -eq 6 ]] || { sed -n 2,9p "$0" >&2; exit 2; }
gen=$1 root_plugin=$2 plugin=$3 time_exe=$4 target=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$gen" -r rt -e object -o "$work" "target=$target" >"$work/rt.log" 2>&1
g++ -shared -o "$work/rt.so" "$work/rt.o" -lpthread -ldl
# build NAME PLUGIN SCHEDULER [SCHEDULE_FILE]: camera_pipe as WORK/NAME.so
build() {
    local name=$1 plug=$2 s=$3 env=()
    [[ $# -gt 3 ]] && env=(SEXTANT_SCHEDULE_FILE="$4")
    env "${env[@]}" "$gen" -g camera_pipe -f "$name" -n "$name" -o "$work" -e object -p "$plug" \
        -s "$s" auto_schedule=true machine_params=2,16777216,40 "target=$target-no_runtime" \
        >"$work/$name.log" 2>&1 || return 1
    g++ -shared -o "$work/$name.so" "$work/$name.o"
}
build root "$root_plugin" BenchRoot || { echo "FAIL: the reference build"; tail -3 "$work/root.log"; exit 1; }
"$time_exe" --runtime "$work/rt.so" --save-ref "$work/ref.bin" "$work/root.so:root" >"$work/ref.log" 2>&1
status=0
if build crash "$plugin" Sextant "$here/camera_pipe_parity_crash.txt"; then
    echo "FAIL: the crashing schedule was accepted"
    status=1
elif ! grep -q "schedule text line 13: Func 'linear' computed at level 1 of 'demosaiced'.*parity" \
    "$work/crash.log"; then
    echo "FAIL: the refusal does not name the line and the cause: $(tail -2 "$work/crash.log")"
    status=1
else
    echo "ok: the crashing schedule is refused"
fi
if ! build serial "$plugin" Sextant "$here/camera_pipe_parity_serial.txt"; then
    echo "FAIL: the schedule with a serial vector loop was refused: $(tail -2 "$work/serial.log")"
    status=1
elif "$time_exe" --runtime "$work/rt.so" --check "$work/ref.bin" "$work/serial.so:serial" \
    >"$work/serial.check.json" 2>&1; then
    echo "ok: the schedule with a serial vector loop is correct"
else
    echo "FAIL: serial: $(cat "$work/serial.check.json")"
    status=1
fi
[[ $status -eq 0 ]] && echo "parity load test passed"
exit $status
