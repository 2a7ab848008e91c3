#!/usr/bin/env python3
"""How far two `sextant-sample --regret` runs of the same picks agree: the judge's own noise.

    scripts/regret_noise.py RUN_A.jsonl RUN_B.jsonl

For the seeds both runs judged: each run's geomean of learned / analytical, how far the per-seed
ratio moved between the runs (median, 75th and 90th percentile of |change|), and how far one and
the same schedule (the analytical pick, the best known; matched by hash) moved when re-timed.
Judge on an idle machine: on two cores a competing process moves these figures by 2-4x
(docs/COSTMODEL.md, "On-policy rounds").
"""
import argparse
import math

from regret_report import geomean, read_regret


def read_run(path):
    """{seed: line} of one run's judged seeds (one weights file per run)."""
    run = {}
    for lines in read_regret(path).values():
        run.update({seed: j for seed, j in lines.items() if "error" not in j})
    return run


def schedule_with_role(line, role):
    for s in line["schedules"]:
        if role in s["roles"]:
            return s
    return None


def percentiles(changes, qs=(0.5, 0.75, 0.9)):
    """The |log| changes at the given quantiles, as percentages."""
    v = sorted(changes)
    return [100 * math.expm1(v[min(len(v) - 1, int(q * len(v)))]) for q in qs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_a")
    ap.add_argument("run_b")
    args = ap.parse_args()
    a, b = read_run(args.run_a), read_run(args.run_b)
    seeds = sorted(set(a) & set(b))
    if not seeds:
        raise SystemExit("regret_noise.py: the two runs share no judged seed")
    ra = [a[s]["learned_over_analytical"] for s in seeds]
    rb = [b[s]["learned_over_analytical"] for s in seeds]
    moved = [abs(math.log(x / y)) for x, y in zip(ra, rb)]
    print(f"{len(seeds)} seeds judged in both runs")
    print(f"learned / analytical, geomean: {geomean(ra):.3f} and {geomean(rb):.3f}")
    p = percentiles(moved)
    print(f"per-seed ratio moved: median {p[0]:.1f}%, 75th pct {p[1]:.1f}%, 90th pct {p[2]:.1f}%")
    for role in ("analytical", "best_known"):
        changes = []
        for s in seeds:
            x, y = schedule_with_role(a[s], role), schedule_with_role(b[s], role)
            if x and y and x["hash"] == y["hash"] and x["time_s"] > 0 and y["time_s"] > 0:
                changes.append(abs(math.log(x["time_s"] / y["time_s"])))
        if changes:
            p = percentiles(changes)
            print(f"{role} schedule re-timed ({len(changes)} seeds): median {p[0]:.1f}%, "
                  f"75th pct {p[1]:.1f}%, 90th pct {p[2]:.1f}%")


if __name__ == "__main__":
    main()
