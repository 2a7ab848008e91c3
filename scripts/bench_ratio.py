#!/usr/bin/env python3
"""Per-pipeline runtime ratio of two schedulers of one bench.sh run, and their geomean over
the pipelines both scheduled (min ms, same process, interleaved repetitions).

    scripts/bench_ratio.py build/bench-final sextant-learned sextant-analytical
"""
import json
import math
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = json.load(open(sys.argv[1] + "/results.json"))["rows"]
    a, b = sys.argv[2], sys.argv[3]
    t = {}
    for r in rows:
        if r.get("status") == "ok":
            t.setdefault(r["pipeline"], {})[r["scheduler"]] = r["min_ms"]
    logs = []
    for p in sorted(t):
        x, y = t[p].get(a), t[p].get(b)
        print("%-26s %10s %10s  %s" % (p, x, y, "%.2f" % (x / y) if x and y else "-"))
        if x and y:
            logs.append(math.log(x / y))
    print("geomean %s / %s over %d pipelines: %.3f" % (a, b, len(logs), math.exp(sum(logs) / len(logs))))


if __name__ == "__main__":
    main()
