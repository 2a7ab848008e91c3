#!/usr/bin/env python3
"""Summarizes `sextant-sample --regret` output: per weights file, over the seeds judged, the
geomean of the learned pick's time over the analytical pick's, each pick's regret (its time over
the fastest schedule timed for that pipeline: the two picks and the best known one), how often
each pick is the faster one by more than the noise, and the 10 worst learned picks.

    scripts/regret_report.py regret.jsonl [--weights FILE] [--noise 0.05]
"""
import argparse
import json
import math


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl")
    ap.add_argument("--weights", help="only lines judging this weights file")
    ap.add_argument("--noise", type=float, default=0.05,
                    help="a pick is faster only when the other is slower by more than this")
    a = ap.parse_args()
    by_weights = {}
    with open(a.jsonl) as f:
        for line in f:
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run
            if a.weights and j.get("weights") != a.weights:
                continue
            by_weights.setdefault(j.get("weights"), {})[j["seed"]] = j  # a rerun's line wins
    for weights, seeds in by_weights.items():
        ok = [j for j in seeds.values() if "error" not in j]
        failed = [j for j in seeds.values() if "error" in j]
        ratio = [j["learned_over_analytical"] for j in ok]
        lr = [j["learned_regret"] for j in ok]
        ar = [j["analytical_regret"] for j in ok]
        faster = sum(r < 1 / (1 + a.noise) for r in ratio)
        slower = sum(r > 1 + a.noise for r in ratio)
        print(f"## {weights}: {len(ok)} pipelines judged ({len(failed)} failed)\n")
        print("| measure | learned | analytical |")
        print("|---|---:|---:|")
        print(f"| regret, geomean (time / fastest timed) | {geomean(lr):.3f} | {geomean(ar):.3f} |")
        worst = lambda v: sorted(v)[-10:]
        print(f"| regret, geomean of the worst 10 | {geomean(worst(lr)):.3f} | {geomean(worst(ar)):.3f} |")
        print(f"| regret, max | {max(lr, default=float('nan')):.3f} | {max(ar, default=float('nan')):.3f} |")
        print(f"| pick is the faster by > {a.noise:.0%} | {faster} | {slower} |")
        print(f"\nlearned pick / analytical pick, geomean: **{geomean(ratio):.3f}** "
              f"(< 1: the learned model's picks are faster)\n")
        print("| seed | learned regret | analytical regret | learned / analytical |")
        print("|---:|---:|---:|---:|")
        for j in sorted(ok, key=lambda j: -j["learned_regret"])[:10]:
            print(f"| {j['seed']} | {j['learned_regret']:.3f} | {j['analytical_regret']:.3f} | "
                  f"{j['learned_over_analytical']:.3f} |")
        for j in failed:
            print(f"\nfailed: seed {j['seed']}: {j['error']}")
        print()


if __name__ == "__main__":
    main()
