#!/usr/bin/env bash
# The stream-restart experiment of docs/COSTMODEL.md (session 35). With the rule applied
# (`git apply bench/experiments/stream_restart/featurizer.patch`, `ninja -C build`), run
# `run.sh picks OUT` to dump every bench pipeline's one-shot pick; do the same without it into
# another OUT, then `run.sh ab BASE NEW OUT P...` re-times each pipeline's two picks
# interleaved in fresh processes (5 rounds; the machine params of the bench).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
gen=$ROOT/build/bench/sextant_bench_generators
case "${1:-}" in
picks)
    out=$2
    mkdir -p "$out"
    for p in bilateral_grid bilateral_guided_upsampling box_blur camera_pipe conv_relu \
        depthwise_separable_conv harris histogram_equalize iir_blur interpolate \
        local_laplacian matmul max_filter nl_means stencil_chain stencil_chain_32 unsharp_mask; do
        mkdir -p "$out/$p"
        SEXTANT_DUMP_SCHEDULE=$out/$p.txt "$gen" -g "$p" -o "$out/$p" -e schedule \
            -p "$ROOT/build/plugin/libautoschedule_sextant.so" -s Sextant auto_schedule=true \
            target=x86-64-linux-avx-avx2-f16c-fma-sse41 machine_params=2,16777216,40 \
            >"$out/$p.log" 2>&1
        echo "$p done"
    done
    ;;
ab)
    base=$2 new=$3 out=$4
    shift 4
    mkdir -p "$out"
    for p in "$@"; do
        "$ROOT/build/tools/sextant-autotune" --generator "$gen" -g "$p" --dir "$out/$p" \
            --machine-params 2,16777216,40 --remeasure "$base/$p.txt,$new/$p.txt" --rounds 5 \
            >"$out/$p.log" 2>&1
        echo "== $p"
        grep "min .* ms" "$out/$p.log"
    done
    ;;
*)
    echo "usage: $0 picks OUT | ab BASE NEW OUT PIPELINE..." >&2
    exit 2
    ;;
esac
