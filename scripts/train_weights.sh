#!/usr/bin/env bash
# Trains the learned cost model on a SampleStore and (with --ship) installs the result as the
# shipped weights: weights/sextant.sxw (an ensemble file), weights/members/s*.sxw (its nets),
# weights/report.json, weights/scatter.png and weights/REPORT.md. The settings are the ones
# the shipped weights were trained with (weights/REPORT.md).
#
#   scripts/train_weights.sh --db build-sampler/samples.db --out build/train-weights [--ship]
#
# Options: --build DIR (default: $SEXTANT_BUILD or build; needs sextant-sample and
# sextant-train, i.e. a LibTorch build), --members N (5: nets trained on all the samples with
# seeds 1..N, each its last epoch, scored with the analytical model as their geometric mean),
# --epochs N (10), --multiplier-range R (8), --loss pairwise|throughput (pairwise), --target
# TEXT (machine description for the manifest; default from lscpu), --regret-db DB
# --regret-seeds A:B (judge the trained weights by their search's picks on held-out seeds
# [A, B) against the best schedules stored in DB, `sextant-sample --regret`, about 20 s a seed
# on 2 cores; REPORT.md then leads with it), --prefixes N (also N partial states of each
# random pipeline's schedules: `sextant-sample --export-prefixes`, docs/COSTMODEL.md "Partial
# states"; 0). Never train on the regret seeds. REPORT.md's
# table is the first member's training report (its held-out split: 15% of the pipelines).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
DB=
OUT=
SHIP=0
EPOCHS=10
RANGE=8
MEMBERS=5
TARGET=
LOSS=pairwise
REGRET_DB=
REGRET_SEEDS=
PREFIXES=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --db) DB=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --build) BUILD=$2; shift 2 ;;
        --ship) SHIP=1; shift ;;
        --epochs) EPOCHS=$2; shift 2 ;;
        --multiplier-range) RANGE=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --loss) LOSS=$2; shift 2 ;;
        --members) MEMBERS=$2; shift 2 ;;
        --regret-db) REGRET_DB=$2; shift 2 ;;
        --regret-seeds) REGRET_SEEDS=$2; shift 2 ;;
        --prefixes) PREFIXES=$2; shift 2 ;;
        -h|--help) sed -n 2,19p "$0"; exit 0 ;;
        *) echo "train_weights.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -n $DB && -n $OUT ]] || { echo "train_weights.sh: --db and --out are required" >&2; exit 2; }
[[ -f $DB ]] || { echo "train_weights.sh: no sample store '$DB'" >&2; exit 1; }
if [[ -n $REGRET_DB || -n $REGRET_SEEDS ]]; then
    [[ -f $REGRET_DB && $REGRET_SEEDS =~ ^[0-9]+:[0-9]+$ ]] || {
        echo "train_weights.sh: --regret-db needs an existing store and --regret-seeds A:B" >&2; exit 2; }
fi
for exe in sampler/sextant-sample costmodel/sextant-train; do
    [[ -x $BUILD/$exe ]] || cmake --build "$BUILD" --target "$(basename $exe)" -j"$(nproc)"
done
if [[ -z $TARGET ]]; then
    TARGET="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, L3 $(lscpu | sed -n 's/^L3 cache: *//p' | head -1)"
fi
mkdir -p "$OUT"
echo "== exporting training samples from $DB" >&2
PREFIX_ARGS=()
[[ $PREFIXES == 0 ]] || PREFIX_ARGS=(--export-prefixes "$PREFIXES")
"$BUILD/sampler/sextant-sample" --db "$DB" --export-training "$OUT/train.jsonl" "${PREFIX_ARGS[@]}"
[[ $MEMBERS =~ ^[1-9][0-9]*$ ]] || { echo "train_weights.sh: --members wants N >= 1" >&2; exit 2; }
TRAIN=(--data "$OUT/train.jsonl" --pipelines-per-step 4 --lr 5e-3 --epochs "$EPOCHS"
       --weight-pairs-by-gap --loss "$LOSS" --multiplier-range "$RANGE" --schedule-only
       --parallelism 2 --llc-bytes 33554432 --target "$TARGET")
echo "== training the report's net ($EPOCHS epochs, multiplier range $RANGE, 15% held out)" >&2
"$BUILD/costmodel/sextant-train" "${TRAIN[@]}" --out "$OUT" --seed 1
MEMBER_ARGS=()
for ((k = 1; k <= MEMBERS; k++)); do
    echo "== member $k of $MEMBERS: every pipeline, seed $k, its last epoch" >&2
    "$BUILD/costmodel/sextant-train" "${TRAIN[@]}" --out "$OUT/m$k" --seed "$k" --val-percent 0 \
        --no-plot --quiet
    mkdir -p "$OUT/members"
    cp "$OUT/m$k/checkpoint/model.sxw" "$OUT/members/s$k.sxw"
    MEMBER_ARGS+=(--member "$OUT/members/s$k.sxw")
done
"$BUILD/costmodel/sextant-train" --ensemble "$OUT/sextant.sxw" --member analytical \
    "${MEMBER_ARGS[@]}" --caution 0
REGRET_ARGS=()
if [[ -n $REGRET_DB ]]; then
    echo "== search regret on held-out seeds $REGRET_SEEDS" >&2
    "$BUILD/sampler/sextant-sample" --db "$REGRET_DB" --regret "$OUT/sextant.sxw" \
        --regret-out "$OUT/regret.jsonl" --from "${REGRET_SEEDS%:*}" --to "${REGRET_SEEDS#*:}"
    REGRET_ARGS=(--regret "$OUT/regret.jsonl")
fi
python3 "$ROOT/scripts/weights_report.py" "$OUT/report.json" "${REGRET_ARGS[@]}" > "$OUT/REPORT.md"
if [[ $SHIP == 1 ]]; then
    rm -rf "$ROOT/weights/members"
    cp -r "$OUT/members" "$ROOT/weights/members"
    cp "$OUT/sextant.sxw" "$ROOT/weights/sextant.sxw"
    cp "$OUT/report.json" "$ROOT/weights/report.json"
    [[ -f $OUT/scatter.png ]] && cp "$OUT/scatter.png" "$ROOT/weights/scatter.png"
    cp "$OUT/REPORT.md" "$ROOT/weights/REPORT.md"
    [[ -f $OUT/regret.jsonl ]] && cp "$OUT/regret.jsonl" "$ROOT/weights/regret.jsonl"
    echo "== shipped: weights/sextant.sxw and weights/members/ (reconfigure the build so the plugin defaults to it)" >&2
fi
cat "$OUT/REPORT.md"
