#!/bin/bash
# train.sh DATA OUT [extra sextant-train args]: train_weights.sh's report net + 5 members + ensemble on DATA
set -e
DATA=$1; OUT=$2; shift 2
B=/work/main/build
mkdir -p $OUT
TARGET="AMD EPYC, 2 cores, L3 "
TRAIN=(--data $DATA --pipelines-per-step 4 --lr 5e-3 --epochs 10 --weight-pairs-by-gap --loss pairwise --multiplier-range 8 --schedule-only --parallelism 2 --llc-bytes 33554432 --target "$TARGET" "$@")
echo "== report net $(date)"
$B/costmodel/sextant-train "${TRAIN[@]}" --out $OUT --seed $((1+${SB:-0})) --no-plot
M=()
for k in 1 2 3 4 5; do
  echo "== member $k $(date)"
  $B/costmodel/sextant-train "${TRAIN[@]}" --out $OUT/m$k --seed $((k+${SB:-0})) --val-percent 0 --no-plot --quiet
  mkdir -p $OUT/members; cp $OUT/m$k/checkpoint/model.sxw $OUT/members/s$k.sxw; M+=(--member $OUT/members/s$k.sxw)
done
$B/costmodel/sextant-train --ensemble $OUT/sextant.sxw --member analytical "${M[@]}" --caution 0
echo "== done $(date)"
