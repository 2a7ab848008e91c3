#!/usr/bin/env python3
"""Counts schedules the featurizer cannot tell apart: samples of one pipeline whose schedule
rows and allocator estimate are identical (rounded to 6 digits), and how many of the
same-pipeline pairs whose runtimes differ by more than 5% are among them
(docs/COSTMODEL.md, "Is it capacity, aliasing or generalization?").

    scripts/feature_aliasing.py train.jsonl   # a `sextant-sample --export-training` file
"""
import collections
import json
import math
import sys


def main(path):
    by_pipeline = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            s = json.loads(line)
            key = json.dumps([[round(x, 6) for x in row] for row in s["schedule"]])
            key += json.dumps(s.get("allocator", []))
            by_pipeline[s["pipeline"]].append((key, s["runtime_seconds"]))
    apart = aliased = aliased_big = groups = grouped = 0
    for samples in by_pipeline.values():
        same = collections.defaultdict(list)
        for key, runtime in samples:
            same[key].append(runtime)
        for runtimes in same.values():
            if len(runtimes) < 2:
                continue
            groups += 1
            grouped += len(runtimes)
            for i in range(len(runtimes)):
                for j in range(i + 1, len(runtimes)):
                    gap = abs(math.log(runtimes[i] / runtimes[j]))
                    aliased += gap > 0.05
                    aliased_big += gap > 0.2
        for i in range(len(samples)):
            for j in range(i + 1, len(samples)):
                apart += abs(math.log(samples[i][1] / samples[j][1])) > 0.05
    print(f"{len(by_pipeline)} pipelines, {sum(map(len, by_pipeline.values()))} samples")
    print(f"{groups} groups of identical features holding {grouped} samples")
    print(f"{apart} pairs more than 5% apart; {aliased} of them with identical features "
          f"({aliased_big} more than 22% apart)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
