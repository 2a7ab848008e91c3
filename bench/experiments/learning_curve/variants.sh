#!/bin/bash
# recipe variants on train_100, seeds 1-2, scored on valm
B=/work/main/build/costmodel/sextant-train
base=(--pipelines-per-step 4 --lr 5e-3 --weight-pairs-by-gap --loss pairwise --parallelism 2 --llc-bytes 33554432 --val-percent 0 --no-plot --quiet)
run() { name=$1; shift
  for s in 1 2; do
    $B --data train_100.jsonl "${base[@]}" "$@" --out v_$name.s$s --seed $s > v_$name.s$s.log 2>&1
    ./eval.sh v_$name.s$s/checkpoint/model.sxw ev_$name.s$s > ev_$name.s$s.txt
    echo "$name seed $s: $(tr '\n' ' ' < ev_$name.s$s.txt)"
  done; }
run ep20 --epochs 20 --multiplier-range 8 --schedule-only
run full --epochs 10 --multiplier-range 8
run h64 --epochs 10 --multiplier-range 8 --schedule-only --hidden 64
run r16 --epochs 10 --multiplier-range 16 --schedule-only
