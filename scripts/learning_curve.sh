#!/usr/bin/env bash
# Does more data help the nets? Trains the shipped recipe (scripts/train_weights.sh's flags) on
# 25, 50 and 100% of the training pipelines (sextant-train --train-percent: nested sets, by a
# hash of the pipeline id) with the same 15% of pipelines held out at every size, a few seeds
# each, and prints the held-out pairwise accuracy, Kendall tau and top-1 regret of each size's
# last epoch beside the analytical model's on the same pipelines (scripts/learning_curve.py).
# A curve still climbing between 50% and 100% says sample more (docs/COSTMODEL.md).
#
#   scripts/learning_curve.sh --data train.jsonl --out DIR [--percents 25,50,100]
#                             [--seeds 1,2,3] [sextant-train options...]
#
# train.jsonl: a store's `sextant-sample --db D --export-training`. Each net takes 1-3 minutes
# on 2 cores per 10,000 samples.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
DATA= OUT= PERCENTS=25,50,100 SEEDS=1,2,3
ARGS=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --data) DATA=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --percents) PERCENTS=$2; shift 2 ;;
        --seeds) SEEDS=$2; shift 2 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
[[ -n $DATA && -n $OUT ]] || { sed -n 2,14p "$0" >&2; exit 2; }
mkdir -p "$OUT"
for p in ${PERCENTS//,/ }; do
    for s in ${SEEDS//,/ }; do
        echo "== $p% of the training pipelines, seed $s" >&2
        mkdir -p "$OUT/p$p"
        "$BUILD/costmodel/sextant-train" --data "$DATA" --out "$OUT/p$p/s$s" --train-percent "$p" \
            --seed "$s" --epochs 10 --pipelines-per-step 4 --lr 5e-3 --weight-pairs-by-gap \
            --multiplier-range 8 --schedule-only --parallelism 2 --llc-bytes 33554432 \
            --quiet --no-plot "${ARGS[@]}" > "$OUT/p$p/s$s.log" 2>&1 ||
            { echo "learning_curve.sh: $p% seed $s failed:" >&2; tail -3 "$OUT/p$p/s$s.log" >&2; exit 1; }
    done
done
python3 "$ROOT/scripts/learning_curve.py" "$OUT"
