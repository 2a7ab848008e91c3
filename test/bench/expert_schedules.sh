#!/usr/bin/env bash
# ctest bench.expert_schedules: every hand-written expert schedule (bench/schedules/expert/,
# applied by the BenchExpert plugin) builds and computes what the everything-at-root reference
# computes (integers exactly, floats within 1e-4 relative, as scripts/bench.sh checks), and a
# pipeline without one is refused by name.
#   expert_schedules.sh GENERATOR ROOT_PLUGIN EXPERT_PLUGIN SEXTANT_TIME TARGET WORKDIR
set -euo pipefail
[[ $# -eq 6 ]] || { sed -n 2,6p "$0" >&2; exit 2; }
gen=$1 root_plugin=$2 expert_plugin=$3 time_exe=$4 target=$5 work=$6
pipelines="stencil_chain stencil_chain_32 harris camera_pipe camera_pipe_planar interpolate local_laplacian max_filter
histogram_equalize depthwise_separable_conv nl_means"
rm -rf "$work"
mkdir -p "$work"
"$gen" -r rt -e object -o "$work" "target=$target" >"$work/rt.log" 2>&1
g++ -shared -o "$work/rt.so" "$work/rt.o" -lpthread -ldl
# build P SCHEDULER PLUGIN: the pipeline scheduled by the plugin, as WORK/P_SCHEDULER.so
build() {
    local p=$1 s=$2 plugin=$3 fn=${1}_$2
    env SEXTANT_BENCH_PIPELINE="$p" "$gen" -g "$p" -f "$fn" -n "$fn" -o "$work" -e object \
        -p "$plugin" -s "$s" auto_schedule=true machine_params=2,16777216,40 \
        "target=$target-no_runtime" >"$work/$fn.log" 2>&1 ||
        { echo "FAIL: $p with $s:"; tail -5 "$work/$fn.log"; return 1; }
    g++ -shared -o "$work/$fn.so" "$work/$fn.o"
}
status=0
for p in $pipelines; do
    build "$p" BenchRoot "$root_plugin" || { status=1; continue; }
    build "$p" BenchExpert "$expert_plugin" || { status=1; continue; }
    "$time_exe" --runtime "$work/rt.so" --save-ref "$work/$p.ref" "$work/${p}_BenchRoot.so:${p}_BenchRoot" \
        >"$work/$p.ref.log" 2>&1 || { echo "FAIL: $p reference run"; status=1; continue; }
    if "$time_exe" --runtime "$work/rt.so" --check "$work/$p.ref" --rtol 1e-4 \
        "$work/${p}_BenchExpert.so:${p}_BenchExpert" >"$work/$p.check.json" 2>&1; then
        echo "ok: $p"
    else
        echo "FAIL: $p expert output: $(cat "$work/$p.check.json")"
        status=1
    fi
done
# A pipeline with no expert schedule is an error that names it.
if SEXTANT_BENCH_PIPELINE=box_blur "$gen" -g box_blur -o "$work" -e object -p "$expert_plugin" \
    -s BenchExpert auto_schedule=true "target=$target-no_runtime" >"$work/none.log" 2>&1; then
    echo "FAIL: box_blur (no expert schedule) was accepted"
    status=1
elif ! grep -q "no expert schedule for box_blur" "$work/none.log"; then
    echo "FAIL: box_blur's error does not name it: $(tail -2 "$work/none.log")"
    status=1
else
    echo "ok: box_blur refused"
fi
exit $status
