#!/usr/bin/env python3
"""Where a cross-validation's predictions go wrong (docs/COSTMODEL.md, "Finding misprices in
the corpus"), from the held-out rows of each fold's scatter.csv (scripts/train_cv.sh DIR):

  - held-out pairs of one pipeline (runtimes more than 5% apart), bucketed by their measured
    ratio, and the share the learned and the analytical model order right;
  - the same share for geometric blends of the two predictions (learned^a x analytical^(1-a));
  - with --store DB (the sample store the training data was exported from), the same pairs
    by what their two ScheduleTexts change (a boundary Func's placement, another Func's
    placement, or only the stages' loops: tiling, order, vectors, unrolling, parallelism)
    and by how far apart the analytical model prices them; then the N samples whose
    analytical price is furthest off, relative to the rest of their pipeline
    (log(measured / predicted) less the pipeline's median), each with its ScheduleText.

    scripts/cv_misprices.py DIR [--store DB] [--worst N]
"""
import argparse
import collections
import csv
import glob
import math
import os
import re
import sqlite3

EDGES = [1.05, 1.1, 1.2, 1.5, 2, 4, math.inf]
# The boundary-condition Funcs the random pipelines wrap their inputs in (and their clones).
BOUNDARY = re.compile(r"^(repeat_edge|repeat_image|constant_exterior|mirror_image|"
                      r"mirror_interior|s\d+_input_boundary(_guard)?)(\$\d+)?$")
PRICE_GAPS = [0.01, 0.03, 0.1, 0.3, math.inf]  # |log| of the analytical prices' ratio


def held_out(cv_dir):
    """(fold, pipeline) -> [(measured, learned, analytical, source)]."""
    by = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(cv_dir, "f*/scatter.csv"))):
        for r in csv.DictReader(open(f)):
            if r["split"] == "validation":
                by[(f, r["pipeline"])].append((float(r["measured_seconds"]),
                                               float(r["predicted_seconds"]),
                                               float(r["baseline_seconds"]), r["source"]))
    return by


def pairs(by, with_pipeline=False):
    """Every (slower, faster) pair of one pipeline more than 5% apart."""
    for (_, pipeline), s in by.items():
        for a in s:
            for b in s:
                if a[0] > b[0] * EDGES[0]:
                    yield (pipeline, a, b) if with_pipeline else (a, b)


def placements(schedule_text):
    """Func -> its placement line (inline, root, at F N ...) in a ScheduleText."""
    return {line.split()[1]: " ".join(line.split()[2:])
            for line in schedule_text.splitlines() if line.startswith("func ")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cv_dir")
    ap.add_argument("--store", help="the sample store, for the worst samples' ScheduleTexts")
    ap.add_argument("--worst", type=int, default=5)
    a = ap.parse_args()
    by = held_out(a.cv_dir)
    if not by:
        raise SystemExit(f"cv_misprices.py: no held-out rows in {a.cv_dir}/f*/scatter.csv")

    counts = collections.defaultdict(lambda: [0, 0, 0])
    for slow, fast in pairs(by):
        k = next(i for i, e in enumerate(EDGES) if slow[0] / fast[0] < e)
        c = counts[k]
        c[0] += 1
        c[1] += slow[1] > fast[1]
        c[2] += slow[2] > fast[2]
    print("measured ratio   pairs  learned  analytical")
    for k in sorted(counts):
        n, l, an = counts[k]
        print(f"{EDGES[k - 1] if k else EDGES[0]:>5}-{EDGES[k]:<6} {n:>8} {l / n:8.3f} {an / n:11.3f}")
    n = sum(c[0] for c in counts.values())
    print(f"all          {n:>8} {sum(c[1] for c in counts.values()) / n:8.3f} "
          f"{sum(c[2] for c in counts.values()) / n:11.3f}")

    print("\nblend learned^a x analytical^(1-a): a, pairwise")
    for w in [0, 0.25, 0.5, 0.75, 1]:
        score = lambda x: w * math.log(x[1]) + (1 - w) * math.log(x[2])
        ok = sum(score(s) > score(f) for s, f in pairs(by))
        print(f"  {w:4.2f} {ok / n:.4f}")

    if not a.store:
        return
    # Every ScheduleText of the store at once (one query, not one per sample).
    db = sqlite3.connect(a.store)
    schedule = {(identity, source): text for identity, source, text in db.execute(
        "select w.identity, r.source, r.schedule_text from records r join workloads w on "
        "r.workload_id = w.id")}
    text = {(pipeline, x[3]): placements(schedule[(pipeline, x[3])])
            for (_, pipeline), samples in by.items() for x in samples
            if (pipeline, x[3]) in schedule}
    kinds = collections.defaultdict(lambda: [0, 0, 0, 0])
    for pipeline, slow, fast in pairs(by, with_pipeline=True):
        ps, pf = text.get((pipeline, slow[3])), text.get((pipeline, fast[3]))
        if ps is None or pf is None:
            continue
        changed = [f for f in set(ps) | set(pf) if ps.get(f) != pf.get(f)]
        kind = ("a boundary Func's placement" if any(BOUNDARY.match(f) for f in changed) else
                "another Func's placement" if changed else "only the stages' loops")
        gap = abs(math.log(slow[2] / fast[2]))
        g = next(e for e in PRICE_GAPS if gap < e)
        for key in [(kind, -1), (kind, g)]:  # -1: all of the kind
            c = kinds[key]
            c[0] += 1
            c[1] += slow[1] > fast[1]
            c[2] += slow[2] > fast[2]
            c[3] += slow[2] == fast[2]  # priced exactly alike: counted as misordered
    print(f"\nwhat the pair's ScheduleTexts change ({len(text)} of "
          f"{sum(len(s) for s in by.values())} samples found in the store), and the analytical "
          "prices' gap (alike: pairs the analytical model prices exactly alike,\n"
          "which count as misordered)\n"
          "                                          pairs  learned  analytical  alike")
    for (kind, g), (n, l, an, alike) in sorted(kinds.items()):
        if g < 0:
            label = kind
        elif g < math.inf:
            label = f"    priced within {100 * (math.exp(g) - 1):.0f}%"
        else:
            label = "    priced further apart"
        print(f"  {label:38s} {n:>7} {l / n:8.3f} {an / n:11.3f} {alike:>6}")

    off = []
    for (_, pipeline), s in by.items():
        errs = sorted(math.log(x[0] / x[2]) for x in s)
        median = errs[len(errs) // 2]
        off += [(math.log(x[0] / x[2]) - median, pipeline, x) for x in s]
    off.sort(key=lambda e: -abs(e[0]))
    for e, pipeline, x in off[:a.worst]:
        print(f"\n## {pipeline} {x[3]}: measured {x[0]:.4g} s, analytical {x[2]:.4g} s "
              f"({math.exp(e):.3g}x its pipeline's median error)")
        print(schedule.get((pipeline, x[3]), "(not in the store)"))


if __name__ == "__main__":
    main()
