#!/usr/bin/env python3
"""Writes each ScheduleText of a SEXTANT_CANDIDATES file (candidates.jsonl, one candidate per
line) to DIR/c<i>.txt and prints how many there were.

    scripts/split_candidates.py DIR/candidates.jsonl DIR
"""
import json
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
n = 0
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        with open(f"{sys.argv[2]}/c{n - 1}.txt", "w") as out:
            out.write(json.loads(line)["schedule_text"])
print(n)
