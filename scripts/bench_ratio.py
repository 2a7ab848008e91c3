#!/usr/bin/env python3
"""Per-pipeline runtime ratio of two schedulers of one bench.sh run, and their geomean over
the pipelines both scheduled (min ms, same process, interleaved repetitions).

    scripts/bench_ratio.py build/bench-final sextant-learned sextant-analytical

A pipeline whose two schedules are the same (the `.schedule.h` files equal once the
scheduler's name and the comment lines are taken out) is marked `same`: its ratio is the
bench's noise. The last line gives the geomean over the pipelines whose schedules differ,
counting the same ones as 1.
"""
import glob
import json
import math
import os
import re
import sys


def schedule_body(run_dir, pipeline, scheduler):
    """The scheduler's .schedule.h for the pipeline without its names and comments, or None."""
    files = glob.glob(os.path.join(run_dir, pipeline, scheduler, "*.schedule.h"))
    if len(files) != 1:
        return None
    name = re.escape(pipeline + "_" + scheduler.replace("-", "_"))
    with open(files[0]) as f:
        return [re.sub(name, "NAME", line) for line in f if not line.lstrip().startswith("//")]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    run_dir, a, b = sys.argv[1:]
    rows = json.load(open(os.path.join(run_dir, "results.json")))["rows"]
    t = {}
    for r in rows:
        if r.get("status") == "ok":
            t.setdefault(r["pipeline"], {})[r["scheduler"]] = r["min_ms"]
    logs, differing, n_same = [], [], 0
    for p in sorted(t):
        x, y = t[p].get(a), t[p].get(b)
        body = schedule_body(run_dir, p, a)
        same = body is not None and body == schedule_body(run_dir, p, b)
        print("%-26s %10s %10s  %s%s" % (p, x, y, "%.2f" % (x / y) if x and y else "-",
                                          "  same" if same else ""))
        if x and y:
            logs.append(math.log(x / y))
            differing.append(0.0 if same else math.log(x / y))
            n_same += same
    if not logs:
        sys.exit("bench_ratio.py: no pipeline timed with both %s and %s" % (a, b))
    print("geomean %s / %s over %d pipelines: %.3f" % (a, b, len(logs), math.exp(sum(logs) / len(logs))))
    print("same schedules on %d of %d; geomean with those counted as 1: %.3f" %
          (n_same, len(logs), math.exp(sum(differing) / len(differing))))

if __name__ == "__main__":
    main()
