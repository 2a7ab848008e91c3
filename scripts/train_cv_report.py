#!/usr/bin/env python3
"""Summarises scripts/train_cv.sh's folds: per epoch, held-out pairwise accuracy (mean over
folds) and top-1 regret (geometric mean over folds); the analytical model's on the same folds.

    scripts/train_cv_report.py DIR
"""
import glob
import json
import math
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    reports = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "f*/report.json")))]
    if not reports:
        sys.exit(f"train_cv_report.py: no f*/report.json under {d}")
    mean = lambda xs: sum(xs) / len(xs)
    gmean = lambda xs: math.exp(mean([math.log(x) for x in xs]))
    base = [r["metrics"]["baseline"]["validation"] for r in reports]
    epochs = min(len(r["history"]) for r in reports)
    rows = []
    for e in range(epochs):
        h = [r["history"][e] for r in reports]
        rows.append((e + 1, mean([x["val_pairwise_accuracy"] for x in h]),
                     gmean([x["val_top1_regret_geomean"] for x in h])))
    pipelines = sum(b["pipelines"] for b in base)
    print(f"{os.path.basename(os.path.normpath(d))}: {len(reports)} folds, {pipelines} held-out "
          f"pipelines in all")
    print(f"  analytical: pairwise {mean([b['pairwise_accuracy'] for b in base]):.3f}, "
          f"top-1 regret {gmean([b['top1_regret_geomean'] for b in base]):.3f}")
    best = max(rows, key=lambda r: r[1])
    print(f"  learned, last epoch {rows[-1][0]}: pairwise {rows[-1][1]:.3f}, top-1 regret "
          f"{rows[-1][2]:.3f}; best mean epoch {best[0]}: {best[1]:.3f}, {best[2]:.3f}")
    train = mean([r["metrics"]["train"]["pairwise_accuracy"] for r in reports])
    print(f"  training pipelines (each fold's picked epoch): pairwise {train:.3f}")
    print("  per epoch: " + " ".join(f"{e}:{p:.3f}/{g:.3f}" for e, p, g in rows))


if __name__ == "__main__":
    main()
