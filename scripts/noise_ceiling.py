#!/usr/bin/env python3
"""The noise ceiling of a sample set: how far one measurement of a schedule can be trusted.

Runs `sextant-sample --db DB --remeasure FRACTION --rounds R`, which picks a random FRACTION of
the store's random-pipeline workloads and measures every successful record of each again, R
times, each time in fresh processes with the timing protocol (docs/MEASURING.md); then prints:

  * by runtime gap: for every pair of schedules of one pipeline, how often two independent
    measurements (fresh rounds 1 and 2) put the pair in the same order, bucketed by the gap
    one measurement sees (|a/b - 1|, each round taken once as the reference); and how often the
    stored measurement and a fresh one agree;
  * per schedule: the spread of its fresh measurements (max / min) and fresh / stored.

  scripts/noise_ceiling.py --db samples.db --fraction 0.05 --out noise.jsonl
  scripts/noise_ceiling.py --report noise.jsonl          # tabulate an existing file
"""
import argparse
import itertools
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUCKETS = [0.01, 0.02, 0.05, 0.10, 0.20, 0.50, 1.00, math.inf]


def bucket_name(i):
    lo = 0 if i == 0 else BUCKETS[i - 1]
    hi = BUCKETS[i]
    if hi == math.inf:
        return f">= {lo:.0%}"
    return f"{lo:.0%} - {hi:.0%}"


def bucket_of(gap):
    for i, hi in enumerate(BUCKETS):
        if gap < hi:
            return i
    return len(BUCKETS) - 1


def quantile(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def report(path):
    recs = [json.loads(l) for l in open(path) if l.startswith("{")]
    ok = [r for r in recs if not r.get("error") and len(r.get("runs_s", [])) >= 2]
    by_w = defaultdict(list)
    for r in ok:
        by_w[r["workload"]].append(r)
    fresh = [[0, 0] for _ in BUCKETS]   # agree, total (fresh round vs the other fresh round)
    stored = [[0, 0] for _ in BUCKETS]  # agree, total (stored vs fresh round 1)
    pairs = 0
    for rs in by_w.values():
        for a, b in itertools.combinations(rs, 2):
            pairs += 1
            for ref, other in ((0, 1), (1, 0)):
                x, y = a["runs_s"][ref], b["runs_s"][ref]
                if x == y:
                    continue
                k = bucket_of(max(x, y) / min(x, y) - 1)
                fresh[k][1] += 1
                fresh[k][0] += (x < y) == (a["runs_s"][other] < b["runs_s"][other])
            x, y = a["stored_s"], b["stored_s"]
            if x != y:
                k = bucket_of(max(x, y) / min(x, y) - 1)
                stored[k][1] += 1
                stored[k][0] += (x < y) == (a["runs_s"][0] < b["runs_s"][0])
    out = []
    out.append(f"{len(recs)} records re-measured ({len(recs) - len(ok)} failed) of {len(by_w)} "
               f"pipelines, {pairs} pairs of schedules of one pipeline.")
    out.append("")
    out.append("| runtime gap seen by one measurement | comparisons | fresh vs fresh: same order | "
               "stored vs fresh: same order (comparisons) |")
    out.append("|---|---:|---:|---:|")
    for i in range(len(BUCKETS)):
        f, s = fresh[i], stored[i]
        fa = f"{f[0] / f[1]:.1%}" if f[1] else "-"
        sa = f"{s[0] / s[1]:.1%} ({s[1]})" if s[1] else "-"
        out.append(f"| {bucket_name(i)} | {f[1]} | {fa} | {sa} |")
    spread = [max(r["runs_s"]) / min(r["runs_s"]) for r in ok]
    ratio = [r["runs_s"][0] / r["stored_s"] for r in ok if r["stored_s"] > 0]
    faults = [sum(r["minflt_per_run"]) / len(r["minflt_per_run"]) for r in ok]
    busy = sum(1 for r in ok if max(r.get("busy_fraction", [0])) > 0.1)
    out.append("")
    out.append("| per schedule | median | p75 | p90 | p99 | max |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for name, v in (("fresh spread, max / min of the rounds", spread),
                    ("fresh round 1 / stored", ratio)):
        out.append(f"| {name} | " + " | ".join(f"{quantile(v, q):.3f}" for q in
                                                 (0.5, 0.75, 0.9, 0.99, 1.0)) + " |")
    out.append("")
    out.append(f"Minor page faults per run: median {quantile(faults, 0.5):.0f}, "
               f"p90 {quantile(faults, 0.9):.0f}; records with a round still busy after its "
               f"retries: {busy} of {len(ok)}.")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db")
    ap.add_argument("--fraction", type=float, default=0.05)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="noise.jsonl")
    ap.add_argument("--sample", default=os.path.join(ROOT, "build/sampler/sextant-sample"))
    ap.add_argument("--report", metavar="JSONL", help="only tabulate an existing file")
    a = ap.parse_args()
    if a.report:
        print(report(a.report))
        return 0
    if not a.db:
        ap.error("--db is required (or --report)")
    cmd = [a.sample, "--db", a.db, "--remeasure", str(a.fraction), "--remeasure-out", a.out,
           "--rounds", str(a.rounds), "--seed", str(a.seed), "--jobs", str(a.jobs)]
    print("+ " + " ".join(cmd), file=sys.stderr)
    if subprocess.run(cmd).returncode != 0:
        return 1
    print(report(a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
