#!/usr/bin/env python3
"""The learned mode's trust margin, offline (docs/COSTMODEL.md, "A trust margin"): on each
held-out pipeline of a cross-validation (scripts/train_cv.sh DIR), the fold's model ranks the
four candidates the plugin's learned mode ranks (beam, greedy, dropout:20:1, dropout:35:2) and
leaves the beam pick only for one it predicts at least m cheaper. Prints, per margin, how many
pipelines moved, the measured time of the choice over the beam pick's (geomean), how many
choices ran over 1.25x the beam pick, and the oracle (the fastest of the four).

    scripts/cv_margin.py DIR [--margins 0,0.02,0.05,0.1,0.2]
"""
import argparse
import collections
import csv
import glob
import math
import os

CANDIDATES = ["beam", "greedy", "dropout:20:1", "dropout:35:2"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cv_dir")
    ap.add_argument("--margins", default="0,0.02,0.05,0.1,0.2")
    a = ap.parse_args()
    by = collections.defaultdict(dict)  # (fold, pipeline) -> source -> (measured, predicted)
    for f in glob.glob(os.path.join(a.cv_dir, "f*/scatter.csv")):
        for r in csv.DictReader(open(f)):
            if r["split"] == "validation":
                by[(f, r["pipeline"])][r["source"]] = (float(r["measured_seconds"]),
                                                       float(r["predicted_seconds"]))
    full = [s for s in by.values() if all(c in s for c in CANDIDATES)]
    if not full:
        raise SystemExit(f"cv_margin.py: no held-out pipeline with all four candidates in {a.cv_dir}")
    print("margin  pipelines  moved  choice/beam  over_1.25x  oracle")
    for m in (float(x) for x in a.margins.split(",")):
        logs, oracle, moved, worse = [], [], 0, 0
        for s in full:
            beam = s["beam"]
            best = min(CANDIDATES, key=lambda c: s[c][1])
            pick = best if s[best][1] <= beam[1] * (1 - m) and best != "beam" else "beam"
            moved += pick != "beam"
            ratio = s[pick][0] / beam[0]
            worse += ratio > 1.25
            logs.append(math.log(ratio))
            oracle.append(math.log(min(s[c][0] for c in CANDIDATES) / beam[0]))
        print(f"{m:6.2f} {len(full):10d} {moved:6d} {math.exp(sum(logs) / len(logs)):12.4f} "
              f"{worse:11d} {math.exp(sum(oracle) / len(oracle)):7.4f}")


if __name__ == "__main__":
    main()
