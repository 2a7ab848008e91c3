#!/usr/bin/env bash
# Cross-validates sextant-train settings: trains on the same samples six times, each time
# holding out a different 15% of the pipelines (--val-offset 0, 15, ..., 75), and prints the
# held-out pairwise accuracy and top-1 regret per epoch averaged over the folds, beside the
# analytical model's on the same folds. One held-out set of ~50 pipelines reads +-0.01-0.02
# from seed to seed; six folds cover 90% of the pipelines (docs/COSTMODEL.md).
#
#   scripts/train_cv.sh --data train.jsonl --out DIR [--unweighted-pairs] [sextant-train options...]
#
# --unweighted-pairs drops the --weight-pairs-by-gap every fold otherwise trains with.
#
# The folds train one after the other (--threads 2 each). The per-epoch figures are of every
# epoch, not of the epoch a fold picked, so the curve is not chosen on the data it reports.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
DATA= OUT=
ARGS=()
GAP=--weight-pairs-by-gap
while [[ $# -gt 0 ]]; do
    case $1 in
        --data) DATA=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --unweighted-pairs) GAP=; shift ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
[[ -n $DATA && -n $OUT ]] || { sed -n 2,13p "$0" >&2; exit 2; }
mkdir -p "$OUT"
for off in 0 15 30 45 60 75; do
    echo "== fold $off" >&2
    "$BUILD/costmodel/sextant-train" --data "$DATA" --out "$OUT/f$off" --val-offset "$off" \
        --pipelines-per-step 4 --lr 5e-3 $GAP --parallelism 2 \
        --llc-bytes 33554432 --quiet --no-plot --threads 2 "${ARGS[@]}" > "$OUT/f$off.log" 2>&1 ||
        { echo "train_cv.sh: fold $off failed:" >&2; tail -3 "$OUT/f$off.log" >&2; exit 1; }
done
python3 "$ROOT/scripts/train_cv_report.py" "$OUT"
