#!/usr/bin/env bash
# Leave one pipeline out: judge the learned model on real pipelines it never trained on
# (docs/COSTMODEL.md, "App-like samples, one bench pipeline held out at a time"). For each
# pipeline P of the app-like training file, train on the random samples plus the other
# pipelines' samples (the epoch picked on the random samples' usual hold-out), then score P's
# samples with those weights and with the analytical model. Prints one row per pipeline and
# the means; each model and its logs stay in OUT/P.
#
#   scripts/lopo.sh --random train.jsonl --apps bench.jsonl --out DIR [--pipelines a,b] \
#       [-- extra sextant-train options]
#
# train.jsonl and bench.jsonl are `sextant-sample --export-training` files (docs/SAMPLING.md);
# the app pipelines are those whose ids read `user:GENERATOR_FILE:NAME(...)`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRAIN=${SEXTANT_TRAIN:-$ROOT/build/costmodel/sextant-train}
random="" apps="" out="" pipelines=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --random) random=$2; shift 2 ;;
    --apps) apps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --pipelines) pipelines=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "lopo.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
if [[ -z "$random" || -z "$apps" || -z "$out" ]]; then
    echo "usage: $0 --random train.jsonl --apps bench.jsonl --out DIR [--pipelines a,b] [-- train options]" >&2
    exit 2
fi
for f in "$random" "$apps"; do
    [[ -s "$f" ]] || { echo "lopo.sh: '$f' is missing or empty" >&2; exit 2; }
done
[[ -x "$TRAIN" ]] || { echo "lopo.sh: no sextant-train at $TRAIN (build first)" >&2; exit 2; }
mkdir -p "$out"
if [[ -z "$pipelines" ]]; then
    pipelines=$(grep -o '"user:[^":]*:[a-zA-Z0-9_]*(' "$apps" | sed 's/.*:\([a-zA-Z0-9_]*\)($/\1/' |
        sort -u | paste -sd, -)
fi
[[ -n "$pipelines" ]] || { echo "lopo.sh: no user pipelines in '$apps'" >&2; exit 2; }

# The defaults of session 34's table; anything after `--` is appended (later options win).
opts=(--pipelines-per-step 4 --weight-pairs-by-gap --parallelism 2 --llc-bytes 33554432
    --epochs 10 --lr 2e-3 --prior-weight 1 --multiplier-range 8 --repeat-pipelines user::20)
field() { grep "^$1" "$2" | grep -o "\"$3\":[0-9.]*" | head -1 | cut -d: -f2; }

printf '%-28s %8s %8s %8s %8s %8s\n' pipeline samples learned analytic top1-L top1-A
sum_l=0 sum_a=0 n=0
IFS=, read -ra list <<<"$pipelines"
for p in "${list[@]}"; do
    grep -v ":$p(" "$apps" >"$out/apps-without-$p.jsonl" || true
    "$TRAIN" --data "$random" --data "$out/apps-without-$p.jsonl" --out "$out/$p" "${opts[@]}" \
        "$@" --quiet --no-plot >"$out/$p.train.log" 2>&1
    "$TRAIN" --data "$apps" --init "$out/$p/weights.sxw" --epochs 0 --out "$out/$p/held-out" \
        --val-pipelines ":$p(" --parallelism 2 --llc-bytes 33554432 --quiet --no-plot \
        >"$out/$p.score.log" 2>&1
    rm -f "$out/apps-without-$p.jsonl"
    log=$out/$p.score.log
    samples=$(grep -c ":$p(" "$apps" || true)
    l=$(field validation "$log" pairwise_accuracy)
    a=$(field analytical "$log" pairwise_accuracy)
    tl=$(field validation "$log" top1_regret_geomean)
    ta=$(field analytical "$log" top1_regret_geomean)
    printf '%-28s %8s %8.3f %8.3f %8.3f %8.3f\n' "$p" "$samples" "${l:-0}" "${a:-0}" "${tl:-0}" \
        "${ta:-0}"
    sum_l=$(echo "$sum_l + ${l:-0}" | bc -l)
    sum_a=$(echo "$sum_a + ${a:-0}" | bc -l)
    n=$((n + 1))
done
printf '%-28s %8s %8.3f %8.3f\n' "mean pairwise" "" "$(echo "$sum_l / $n" | bc -l)" \
    "$(echo "$sum_a / $n" | bc -l)"
