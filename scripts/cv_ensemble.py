#!/usr/bin/env python3
"""An ensemble of seeds, cross-validated (docs/COSTMODEL.md, "An ensemble of seeds"): reads
DIR/f<offset>/s<seed>/scatter.csv (one model per fold and seed, each scored on its fold's
held-out pipelines) and prints held-out pairwise accuracy (pairs of one pipeline more than 5%
apart, pooled over the folds) and top-1 regret for the analytical model, each member, the
members' mean log prediction, and the cautious blend (mean + standard deviation). Training and
scoring the members, per fold offset O in 0 15 30 45 60 75 and seed S in 1..5:

    build/costmodel/sextant-train --data T --out DIR/fO/tS --val-offset O --seed S \\
        --pipelines-per-step 4 --lr 5e-3 --epochs 10 --weight-pairs-by-gap --multiplier-range 8 \\
        --schedule-only --parallelism 2 --llc-bytes 33554432 --threads 2 --no-plot --quiet
    build/costmodel/sextant-train --data T --init DIR/fO/tS/checkpoint/model.sxw --epochs 0 \\
        --val-offset O --out DIR/fO/sS --parallelism 2 --llc-bytes 33554432 --no-plot --quiet

(the second scores each member's last epoch, not the epoch its held-out set picked;
scripts/cv_ensemble.sh runs both). Also printed: the members with the analytical model as one
more member of the mean (the ensemble file `analytical,s1,...` with caution 0), and the same
figures on each fold's training pipelines (a model that fits them better than the held-out
ones learned something it could not carry over).

    scripts/cv_ensemble.py DIR
"""
import collections
import csv
import glob
import math
import os
import sys


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    for split, title in (("validation", "held out"), ("train", "training pipelines")):
        print(f"== {title}")
        report_split(sys.argv[1], split)


def report_split(root, split):
    preds = collections.defaultdict(dict)  # (fold, pipeline, source) -> seed -> log prediction
    meas, base = {}, {}
    for f in sorted(glob.glob(os.path.join(root, "f*/s*/scatter.csv"))):
        fold, seed = f.split(os.sep)[-3], f.split(os.sep)[-2]
        for r in csv.DictReader(open(f)):
            if r["split"] != split:
                continue
            k = (fold, r["pipeline"], r["source"])
            preds[k][seed] = math.log(float(r["predicted_seconds"]))
            meas[k] = float(r["measured_seconds"])
            base[k] = math.log(float(r["baseline_seconds"]))
    if not preds:
        raise SystemExit(f"cv_ensemble.py: no {split} rows under {root}/f*/s*/")
    seeds = sorted({s for p in preds.values() for s in p})
    by = collections.defaultdict(list)
    for k in preds:
        by[k[:2]].append(k)

    def report(name, score):
        n = ok = 0
        regrets = []
        for ks in by.values():
            for a in ks:
                for b in ks:
                    if meas[a] > meas[b] * 1.05:
                        n += 1
                        ok += score(a) > score(b)
            regrets.append(math.log(meas[min(ks, key=score)] / min(meas[k] for k in ks)))
        print(f"{name:28s} pairwise {ok / n:.4f}  top-1 regret "
              f"{math.exp(sum(regrets) / len(regrets)):.4f}  ({n} pairs)")

    mean = lambda k: sum(preds[k].values()) / len(preds[k])
    std = lambda k: math.sqrt(sum((x - mean(k)) ** 2 for x in preds[k].values()) / len(preds[k]))
    report("analytical", lambda k: base[k])
    for s in seeds:
        report(f"member {s}", lambda k, s=s: preds[k].get(s, mean(k)))
    report("mean log prediction", mean)
    report("cautious (mean + std)", lambda k: mean(k) + std(k))
    report("mean with the analytical", lambda k: (sum(preds[k].values()) + base[k]) / (len(preds[k]) + 1))


if __name__ == "__main__":
    main()
