#!/usr/bin/env python3
"""The allocator estimate against the page faults the sampler measured (docs/COSTMODEL.md,
"Allocation"). Joins a training export (`sextant-sample --db STORE --export-training T`: each
sample's predicted faults, its `allocator` field) with the measured faults per run of the same
samples: the store's `minflt_per_run` (schema 2) or, for stores sampled before it, the
sampler's log lines (`seed N: SOURCE ... F faults/run`).

  - measured faults less the fewest any schedule of the same pipeline took (what the schedule
    adds), by bucket of the predicted faults;
  - the samples where either says more than 1,000 faults a run, and how many of those the two
    disagree on (one says more than 1,000, the other not);
  - with --scatter (a `sextant-train ... --epochs 0` scatter.csv of the same export): pairs of
    one pipeline whose stage sums (the analytical prediction less the allocator's price) are
    within 3% and whose measured faults differ by more than 2,000, and the seconds a fault
    costs by them (least squares through 0, and the median ratio).

    scripts/fault_check.py --data T.jsonl (--store DB | --log LOG [--log LOG ...]) [--scatter CSV]
"""
import argparse
import collections
import csv
import json
import math
import re
import sqlite3

MAIN_ARENA_FAULT_S, THREAD_ARENA_FAULT_S = 6e-6, 12e-6  # costmodel/CostTerms.h
LOG_LINE = re.compile(r"seed (\d+): (\S+) [\d.]+ ms \(median [\d.]+, \d+ runs, (\d+) faults/run")
SEED = re.compile(r"seed=(\d+):")


def measured_from_store(path):
    """(pipeline identity, source) -> faults per run."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    return {(ident, src): f for ident, src, f in db.execute(
        "SELECT w.identity, r.source, r.minflt_per_run FROM records r JOIN workloads w "
        "ON w.id = r.workload_id WHERE r.error IS NULL AND r.minflt_per_run IS NOT NULL")}


def measured_from_logs(paths):
    """(seed, source) -> faults per run, from the sampler's log lines."""
    out = {}
    for p in paths:
        for line in open(p):
            m = LOG_LINE.search(line)
            if m:
                out[(m.group(1), m.group(2))] = float(m.group(3))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--store")
    ap.add_argument("--log", action="append", default=[])
    ap.add_argument("--scatter")
    a = ap.parse_args()
    if bool(a.store) == bool(a.log):
        ap.error("give --store or --log")
    if a.store:
        measured, key = measured_from_store(a.store), lambda pipeline: pipeline
    else:
        measured, key = measured_from_logs(a.log), lambda pipeline: SEED.search(pipeline).group(1)

    # pipeline -> source -> (predicted faults, allocator seconds, measured faults)
    by = collections.defaultdict(dict)
    for line in open(a.data):
        d = json.loads(line)
        k = (key(d["pipeline"]), d["source"])
        if k in measured:
            faults, nests = d["allocator"]
            seconds = (faults - nests) * MAIN_ARENA_FAULT_S + nests * THREAD_ARENA_FAULT_S
            by[d["pipeline"]][d["source"]] = (faults, seconds, measured[k])
    rows = []  # (predicted, measured less the pipeline's fewest)
    for samples in by.values():
        fewest = min(s[2] for s in samples.values())
        rows += [(s[0], s[2] - fewest) for s in samples.values()]
    print("samples joined:", len(rows))
    edges = [0, 1, 100, 1000, 1e4, math.inf]
    for lo, hi in zip(edges, edges[1:]):
        r = sorted(m for p, m in rows if lo <= p < hi)
        if r:
            print("predicted [%g, %g): %d samples, measured extra median %d, p90 %d, mean %d" %
                  (lo, hi, len(r), r[len(r) // 2], r[int(len(r) * 0.9)], sum(r) / len(r)))
    big = [(p, m) for p, m in rows if max(p, m) > 1000]
    print("either over 1,000 faults a run: %d, the two disagree on %d" %
          (len(big), sum((p > 1000) != (m > 1000) for p, m in big)))

    if a.scatter:
        sums = collections.defaultdict(list)  # pipeline -> (measured s, stage sum s, faults)
        for r in csv.DictReader(open(a.scatter)):
            s = by.get(r["pipeline"], {}).get(r["source"])
            if s:
                sums[r["pipeline"]].append((float(r["measured_seconds"]),
                                            float(r["baseline_seconds"]) - s[1], s[2]))
        xs, ys = [], []
        for samples in sums.values():
            for x in samples:
                for y in samples:
                    if x[2] - y[2] > 2000 and abs(math.log(x[1] / y[1])) < 0.03:
                        xs.append(x[2] - y[2])
                        ys.append(x[0] - y[0])
        print("pairs with stage sums within 3%% and faults over 2,000 apart: %d" % len(xs))
        if xs:
            ratios = sorted(y / x for x, y in zip(xs, ys))
            print("seconds per fault: least squares %.2e, median %.2e" %
                  (sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs),
                   ratios[len(ratios) // 2]))


if __name__ == "__main__":
    main()
