#!/bin/bash
# learning_curve.py on a hand-made directory: each percentage's mean of its seeds' last epochs
# (not the best epoch), the gap to the analytical model, and runs that hold out different
# pipelines refused.
# Usage: learning_curve_report_test.sh LEARNING_CURVE_PY WORKDIR
set -euo pipefail
py=$1 work=$2
rm -rf "$work"
report() { # DIR TRAIN_SAMPLES HELD_SAMPLES LAST_PAIRWISE BEST_PAIRWISE
    mkdir -p "$1"
    cat >"$1/report.json" <<JSON
{"data": {"train_samples": $2},
 "history": [{"epoch": 1, "val_pairwise_accuracy": $5, "val_kendall_tau": 0.6, "val_top1_regret_geomean": 1.1},
             {"epoch": 2, "val_pairwise_accuracy": $4, "val_kendall_tau": 0.5, "val_top1_regret_geomean": 1.2}],
 "metrics": {"validation": {"pipelines": 30, "samples": $3, "pairwise_accuracy": $5},
             "baseline": {"validation": {"pipelines": 30, "samples": $3, "pairwise_accuracy": 0.75,
                                         "kendall_tau": 0.45, "top1_regret_geomean": 1.25}}}}
JSON
}
report "$work/p50/s1" 500 300 0.74 0.90
report "$work/p50/s2" 500 300 0.76 0.90
report "$work/p100/s1" 1000 300 0.78 0.90
out=$(python3 "$py" "$work")
echo "$out"
echo "$out" | grep -q 'held out: 30 pipelines, 300 samples; analytical model there: pairwise 0.7500' ||
    { echo "FAIL: header"; exit 1; }
echo "$out" | grep -Eq '^ +50 +500 +0.7400 0.7600 +0.7500 0.5000 1.2000 +\+0.0000$' ||
    { echo "FAIL: 50% row (mean of the last epochs)"; exit 1; }
echo "$out" | grep -Eq '^ +100 +1000 +0.7800 +0.7800 0.5000 1.2000 +\+0.0300$' ||
    { echo "FAIL: 100% row"; exit 1; }
report "$work/p25/s1" 250 299 0.70 0.70
if python3 "$py" "$work" >/dev/null 2>&1; then echo "FAIL: different held-out sets accepted"; exit 1; fi
echo "learning curve report test passed"
