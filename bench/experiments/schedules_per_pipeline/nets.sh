#!/bin/bash
# nets.sh: F=100h SEEDS="1 2 3" ./nets.sh -- one net per seed (the shipped recipe) on train_$F.jsonl, scored
# on the held-out valm.jsonl by ../learning_curve/eval.sh (run in a directory holding both files)
B=/work/main/build/costmodel/sextant-train
T=(--pipelines-per-step 4 --lr 5e-3 --epochs 10 --weight-pairs-by-gap --loss pairwise --multiplier-range 8 --schedule-only --parallelism 2 --llc-bytes 33554432)
for s in ${SEEDS:-1 2 3}; do
  f=${F:-100h}
  $B --data train_$f.jsonl "${T[@]}" --out n$f.s$s --seed $s --val-percent 0 --no-plot --quiet > n$f.s$s.log 2>&1
  /work/main/bench/experiments/learning_curve/eval.sh n$f.s$s/checkpoint/model.sxw e$f.s$s > e$f.s$s.txt
  echo "frac $f seed $s: $(tr "\n" " " < e$f.s$s.txt)"
done
