#!/usr/bin/env python3
"""Does timing a schedule in two fresh processes give better labels than one?

Reads a `sextant-sample --processes 2` log (each schedule's line ends in "processes A/B ms":
the two processes' best runs; the stored label is their minimum) and the same store measured
again by `scripts/noise_ceiling.py --db DB --fraction 1.0 --out NOISE.jsonl` (two fresh rounds
per record). For every pair of schedules of one pipeline, bucketed by the gap the re-measurement
sees (the minimum of its two rounds, as the bench takes the best over its rounds), prints how
often each label orders the pair as the re-measurement does: the first process's best alone
(what `--processes 1` stores) and the minimum of the two.

    scripts/labels_processes.py SAMPLER.log NOISE.jsonl
"""
import argparse
import collections
import itertools
import json
import re
import sys

BUCKETS = [0.02, 0.05, 0.10, 0.20, 0.50, float("inf")]
LINE = re.compile(r"seed (\d+): (\S+) ([0-9.]+) ms \(.*processes ([0-9.]+)/([0-9.]+) ms\)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("noise")
    a = ap.parse_args()
    labels = {}
    for line in open(a.log):
        m = LINE.search(line)
        if m:
            labels[(int(m.group(1)), m.group(2), m.group(3))] = (float(m.group(4)), float(m.group(5)))
    by_seed, missed = collections.defaultdict(list), 0
    for line in open(a.noise):
        j = json.loads(line)
        seed = int(re.search(r"seed=(\d+)", j["workload"]).group(1))
        key = (seed, j["source"], "%.3f" % (j["stored_s"] * 1e3))
        if key not in labels:
            missed += 1
            continue
        first, second = labels[key]
        by_seed[seed].append((first, min(first, second), min(j["runs_s"]) * 1e3))
    if not by_seed:
        sys.exit("no record of the re-measurement matches a '--processes 2' line of the log")
    counts = collections.defaultdict(lambda: [0, 0, 0])
    for rows in by_seed.values():
        for x, y in itertools.combinations(rows, 2):
            gap = max(x[2], y[2]) / min(x[2], y[2]) - 1
            b = next(i for i, edge in enumerate(BUCKETS) if gap < edge)
            faster = x[2] < y[2]
            counts[b][0] += 1
            counts[b][1] += (x[0] < y[0]) == faster
            counts[b][2] += (x[1] < y[1]) == faster
    print(f"{sum(len(r) for r in by_seed.values())} records matched ({missed} not), "
          f"{len(by_seed)} pipelines\n")
    print("| gap in the re-measurement | pairs | one process: same order | min of two: same order |")
    print("|---|---:|---:|---:|")
    lo = 0.0
    for b in sorted(counts):
        n, one, two = counts[b]
        hi = BUCKETS[b]
        span = f"{lo:.0%} - {hi:.0%}" if hi != float("inf") else f">= {lo:.0%}"
        print(f"| {span} | {n} | {one / n:.1%} | {two / n:.1%} |")
        lo = hi


if __name__ == "__main__":
    main()
