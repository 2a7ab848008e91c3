#!/bin/bash
# The md5 split's learning curve: one net per fraction and seed (the shipped recipe), trained on
# train_F.jsonl (split.py) and scored on the held-out valm.jsonl (eval.sh). SEEDS="1 2 3".
B=/work/main/build/costmodel/sextant-train
T=(--pipelines-per-step 4 --lr 5e-3 --epochs 10 --weight-pairs-by-gap --loss pairwise --multiplier-range 8 --schedule-only --parallelism 2 --llc-bytes 33554432)
for f in 25 50 100; do
  for s in ${SEEDS:-1}; do
    $B --data train_$f.jsonl "${T[@]}" --out n$f.s$s --seed $s --val-percent 0 --no-plot --quiet > n$f.s$s.log 2>&1
    ./eval.sh n$f.s$s/checkpoint/model.sxw e$f.s$s > e$f.s$s.txt
    echo "frac $f seed $s: $(tr "\n" " " < e$f.s$s.txt)"
  done
done
