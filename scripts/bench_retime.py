#!/usr/bin/env python3
"""Re-time schedules that scripts/bench.sh already built, with the timing protocol
(docs/MEASURING.md): per pipeline, every label's schedule in fresh processes, interleaved over
--rounds rounds (sextant-time --time); the result per schedule is the best over rounds.

  scripts/bench_retime.py --rounds 3 learned=build/bench-a/*/sextant-learned \\
      analytical=build/bench-a/*/sextant-analytical r2=build/bench-b/*/sextant-learned

Each LABEL=DIR/*/SCHEDULER names bench cells (DIR/PIPELINE/SCHEDULER with lib.so and
function); a pipeline is timed if every label has a cell for it. Prints per-pipeline minima and
the geomean ratio of every label to the first. Needs build-bench/tools/measure/sextant-time
(built by scripts/bench.sh). --variant NAME:K=V,... times with that environment instead.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cells(pattern):
    out = {}
    for d in glob.glob(pattern):
        lib, fn = os.path.join(d, "lib.so"), os.path.join(d, "function")
        if os.path.isfile(lib) and os.path.isfile(fn):
            pipeline = os.path.basename(os.path.dirname(d))
            with open(fn) as f:
                out[pipeline] = lib + ":" + f.read().strip()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20, help="at most this many runs per process")
    ap.add_argument("--driver", default=os.path.join(ROOT, "build-bench/tools/measure/sextant-time"))
    ap.add_argument("--runtime",
                    default=os.path.join(ROOT, "build-bench/tools/libsextant_bench_runtime.so"))
    ap.add_argument("--variant", default="default")
    ap.add_argument("specs", nargs="+", metavar="LABEL=GLOB")
    a = ap.parse_args()
    labels, found = [], []
    for s in a.specs:
        if "=" not in s:
            sys.exit(f"bench_retime: expected LABEL=GLOB, got '{s}'")
        label, pattern = s.split("=", 1)
        labels.append(label)
        found.append(cells(pattern))
    pipelines = sorted(set.intersection(*[set(c) for c in found]))
    if not pipelines:
        sys.exit("bench_retime: no pipeline has a cell for every label")
    best = {p: [math.inf] * len(labels) for p in pipelines}
    for p in pipelines:
        specs = [found[i][p] for i in range(len(labels))]
        res = subprocess.run([a.driver, "--runtime", a.runtime, "--time", "--rounds", str(a.rounds),
                              "--max-runs", str(a.reps), "--budget", "2", "--variant", a.variant]
                             + specs, capture_output=True, text=True)
        lines = [json.loads(l) for l in res.stdout.splitlines() if l.startswith("{")]
        by_spec = {l["pipeline"]: l for l in lines}
        for i, spec in enumerate(specs):
            line = by_spec.get(spec, {})
            if "min_ms" in line:
                best[p][i] = line["min_ms"]
            else:
                print(f"{p} {labels[i]}: timing failed: {line.get('error', res.stderr[-200:])}",
                      file=sys.stderr)
        print(f"{p} done", file=sys.stderr)
    print("| pipeline | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    logs = [[] for _ in labels]
    for p in pipelines:
        row = best[p]
        print(f"| {p} | " + " | ".join(f"{v:.3g}" for v in row) + " |")
        if all(math.isfinite(v) and v > 0 for v in row):
            for i in range(len(labels)):
                logs[i].append(math.log(row[i] / row[0]))
    for i in range(1, len(labels)):
        n = len(logs[i])
        print(f"geomean {labels[i]} / {labels[0]} over {n} pipelines: {math.exp(sum(logs[i]) / n):.3f}")


if __name__ == "__main__":
    main()
