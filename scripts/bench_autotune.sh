#!/usr/bin/env bash
# What measurement finds beyond the one-shot pick, bench pipeline by bench pipeline: each
# pipeline is autotuned for a few minutes (sextant-autotune, model-picked batches, its final
# interleaved re-timing of the untuned pick against the fastest measured), then the untuned
# pick and the tuned best are timed again in fresh rounds of their own (the final re-timing
# chose the best by its minimum, so its own ratio flatters the winner). Prints one row per
# pipeline and the geomean: the room a cost model has on the bench when it may propose any
# schedule the search can reach (docs/AUTOTUNING.md, "Session 58").
#
#   scripts/bench_autotune.sh --out DIR [--pipelines a,b] [--minutes M] [--rounds R]
#
# Resumable: a pipeline whose verify step finished is skipped; an interrupted autotune goes on.
# Each pipeline's measured samples stay in DIR/P/tune/samples.db (shards: docs/SAMPLING.md).
# Run it alone: it times.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
pipelines=bilateral_grid,bilateral_guided_upsampling,box_blur,camera_pipe,camera_pipe_planar,conv_relu,depthwise_separable_conv,harris,histogram_equalize,iir_blur,interpolate,local_laplacian,matmul,max_filter,nl_means,stencil_chain,stencil_chain_32,unsharp_mask
out="" minutes=3 rounds=5
while [[ $# -gt 0 ]]; do
    case "$1" in
    --out) out=$2; shift 2 ;;
    --pipelines) pipelines=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "bench_autotune.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
[[ -n $out ]] || { echo "usage: $0 --out DIR [--pipelines a,b] [--minutes M] [--rounds R]" >&2; exit 2; }
gen=$build/bench/sextant_bench_generators
autotune=$build/tools/sextant-autotune
for x in "$gen" "$autotune"; do
    [[ -x $x ]] || { echo "bench_autotune.sh: $x is missing (scripts/setup.sh builds it)" >&2; exit 1; }
done
mp=2,16777216,40
IFS=, read -ra pipe_list <<<"$pipelines"
for p in "${pipe_list[@]}"; do
    d=$out/$p
    mkdir -p "$d"
    if [[ ! -s $d/verify.tsv ]]; then
        echo "=== $p: autotuning $minutes min ($(date +%H:%M))" >&2
        SEXTANT_BENCH_PIPELINE=$p "$autotune" --generator "$gen" -g "$p" --dir "$d/tune" \
            --machine-params "$mp" --minutes "$minutes" --quiet >"$d/tune.log" 2>&1 ||
            { echo "bench_autotune.sh: $p: autotune failed (see $d/tune.log)" >&2; continue; }
        # The untuned pick (batch 0's baseline) and the tuned best, in fresh rounds.
        base=$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("baseline") and "runtime_seconds" in j:
        print(j["hash"]); break' "$d/tune/measurements.jsonl")
        [[ -n $base ]] || { echo "bench_autotune.sh: $p: no untuned measurement" >&2; continue; }
        cp "$d/tune/schedules/$base.txt" "$d/untuned.txt"
        cp "$d/tune/best.txt" "$d/tuned.txt"
        rm -rf "$d/verify"
        SEXTANT_BENCH_PIPELINE=$p "$autotune" --generator "$gen" -g "$p" --dir "$d/verify" \
            --machine-params "$mp" --remeasure "$d/untuned.txt,$d/tuned.txt" --rounds "$rounds" \
            >"$d/verify.log" 2>&1 ||
            { echo "bench_autotune.sh: $p: re-timing failed (see $d/verify.log)" >&2; continue; }
        # "DIR/untuned.txt: min 1.2345 ms, median ..." -> "untuned<TAB>1.2345"
        sed -n 's#.*/\(untuned\|tuned\)\.txt: min \([0-9.]*\) ms.*#\1\t\2#p' "$d/verify.log" \
            >"$d/verify.tsv.new"
        mv "$d/verify.tsv.new" "$d/verify.tsv"
    fi
done
python3 - "$out" "${pipe_list[@]}" <<'EOF'
import json, math, os, sys
out, pipes = sys.argv[1], sys.argv[2:]
print("| pipeline | measured | untuned ms | tuned ms | tuned / untuned | same schedule |")
print("|---|---:|---:|---:|---:|---|")
logs = []
for p in pipes:
    d = os.path.join(out, p)
    tsv = os.path.join(d, "verify.tsv")
    if not os.path.exists(tsv):
        print(f"| {p} | (not run) |||||")
        continue
    t = dict(line.split("\t") for line in open(tsv).read().split("\n") if line)
    n = sum(1 for line in open(os.path.join(d, "tune", "measurements.jsonl"))
            if "runtime_seconds" in json.loads(line))
    same = open(os.path.join(d, "untuned.txt")).read() == open(os.path.join(d, "tuned.txt")).read()
    u, b = float(t["untuned"]), float(t["tuned"])
    # The same schedule twice is no gain whatever its two timings read.
    r = 1.0 if same else b / u
    logs.append(math.log(r))
    print(f"| {p} | {n} | {u:.4g} | {b:.4g} | {r:.3f} | {'yes' if same else 'no'} |")
if logs:
    print(f"| **geomean of {len(logs)}** | | | | **{math.exp(sum(logs) / len(logs)):.3f}** | |")
EOF
