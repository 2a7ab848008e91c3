#!/usr/bin/env bash
# Cross-validates an ensemble of seeds (docs/COSTMODEL.md, "An ensemble of seeds"): per fold
# (--val-offset 0, 15, ..., 75) trains one net per seed with the shipped settings, scores each
# net's last epoch on its fold's held-out pipelines, then prints scripts/cv_ensemble.py's
# figures (each member, their mean log prediction, the cautious blend, the analytical model).
# Resumes: a fold and seed already scored is not trained again.
#
#   scripts/cv_ensemble.sh --data train.jsonl --out DIR [--seeds N (5)] [sextant-train options...]
#
# --init-members DIR fine-tunes instead: seed S starts from DIR/sS.sxw (weights/members/: the
# shipped nets, e.g. on another machine's samples), for --epochs N of the options (0: score
# the members as they are, nothing trained).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
DATA= OUT= SEEDS=5 INIT= EPOCHS=10
ARGS=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --data) DATA=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --seeds) SEEDS=$2; shift 2 ;;
        --init-members) INIT=$2; shift 2 ;;
        --epochs) EPOCHS=$2; shift 2 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
[[ -n $DATA && -n $OUT ]] || { sed -n 2,12p "$0" >&2; exit 2; }
COMMON=(--parallelism 2 --llc-bytes 33554432 --no-plot --quiet)
for off in 0 15 30 45 60 75; do
    for s in $(seq 1 "$SEEDS"); do
        [[ -s $OUT/f$off/s$s/scatter.csv ]] && continue
        echo "== fold $off, seed $s" >&2
        mkdir -p "$OUT/f$off"
        START=()
        [[ -n $INIT ]] && START=(--init "$INIT/s$s.sxw")
        MODEL=$OUT/f$off/t$s/checkpoint/model.sxw
        if [[ -n $INIT && $EPOCHS == 0 ]]; then
            MODEL=$INIT/s$s.sxw
        else
            "$BUILD/costmodel/sextant-train" --data "$DATA" --out "$OUT/f$off/t$s" --val-offset "$off" \
                --seed "$s" --pipelines-per-step 4 --lr 5e-3 --epochs "$EPOCHS" --weight-pairs-by-gap \
                --multiplier-range 8 --schedule-only --threads 2 "${START[@]}" "${COMMON[@]}" "${ARGS[@]}" \
                > "$OUT/f$off/t$s.log" 2>&1 ||
                { echo "cv_ensemble.sh: fold $off seed $s failed:" >&2; tail -3 "$OUT/f$off/t$s.log" >&2; exit 1; }
        fi
        "$BUILD/costmodel/sextant-train" --data "$DATA" --init "$MODEL" \
            --epochs 0 --val-offset "$off" --out "$OUT/f$off/s$s" "${COMMON[@]}" \
            > "$OUT/f$off/s$s.log" 2>&1 ||
            { echo "cv_ensemble.sh: scoring fold $off seed $s failed:" >&2; tail -3 "$OUT/f$off/s$s.log" >&2; exit 1; }
    done
done
python3 "$ROOT/scripts/cv_ensemble.py" "$OUT"
