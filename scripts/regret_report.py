#!/usr/bin/env python3
"""Summarizes `sextant-sample --regret` output: per weights file, over the seeds judged, the
geomean of the learned pick's time over the analytical pick's, each pick's regret (its time over
the fastest schedule timed for that pipeline: the two picks and the best known one), how often
each pick is the faster one by more than the noise, and the 10 worst learned picks.

    scripts/regret_report.py regret.jsonl [--weights FILE] [--noise 0.05] [--seeds A:B]
"""
import argparse
import json
import math
import re


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def seed_range(text):
    """argparse type for `--seeds A:B` (seeds A <= seed < B)."""
    m = re.fullmatch(r"(\d+):(\d+)", text)
    if not m or int(m.group(1)) > int(m.group(2)):
        raise argparse.ArgumentTypeError("expected A:B with A <= B, got '%s'" % text)
    return int(m.group(1)), int(m.group(2))


def read_regret(path, weights=None, seeds=None):
    """{weights file: {seed: line}}; a rerun's line for a seed replaces the earlier one."""
    by_weights = {}
    with open(path) as f:
        for line in f:
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interrupted run
            if weights and j.get("weights") != weights:
                continue
            if seeds and not seeds[0] <= j["seed"] < seeds[1]:
                continue
            by_weights.setdefault(j.get("weights"), {})[j["seed"]] = j
    return by_weights


def summary(weights, lines, noise=0.05, heading="##"):
    """Markdown for one weights file's lines (a list of parsed JSON lines)."""
    ok = [j for j in lines if "error" not in j]
    failed = [j for j in lines if "error" in j]
    ratio = [j["learned_over_analytical"] for j in ok]
    lr = [j["learned_regret"] for j in ok]
    ar = [j["analytical_regret"] for j in ok]
    faster = sum(r < 1 / (1 + noise) for r in ratio)
    slower = sum(r > 1 + noise for r in ratio)
    nan = float("nan")
    worst = lambda v: sorted(v)[-10:]
    out = [f"{heading} {weights}: {len(ok)} pipelines judged ({len(failed)} failed)", "",
           "| measure | learned | analytical |", "|---|---:|---:|",
           f"| regret, geomean (time / fastest timed) | {geomean(lr):.3f} | {geomean(ar):.3f} |",
           f"| regret, geomean of the worst 10 | {geomean(worst(lr)):.3f} | "
           f"{geomean(worst(ar)):.3f} |",
           f"| regret, max | {max(lr, default=nan):.3f} | {max(ar, default=nan):.3f} |",
           f"| pick is the faster by > {noise:.0%} | {faster} | {slower} |", "",
           f"learned pick / analytical pick, geomean: **{geomean(ratio):.3f}** "
           f"(< 1: the learned model's picks are faster)", "",
           "| seed | learned regret | analytical regret | learned / analytical |",
           "|---:|---:|---:|---:|"]
    for j in sorted(ok, key=lambda j: -j["learned_regret"])[:10]:
        out.append(f"| {j['seed']} | {j['learned_regret']:.3f} | {j['analytical_regret']:.3f} "
                   f"| {j['learned_over_analytical']:.3f} |")
    for j in failed:
        out += ["", f"failed: seed {j['seed']}: {j['error']}"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl")
    ap.add_argument("--weights", help="only lines judging this weights file")
    ap.add_argument("--noise", type=float, default=0.05,
                    help="a pick is faster only when the other is slower by more than this")
    ap.add_argument("--seeds", type=seed_range, help="only seeds A <= seed < B, given as A:B")
    a = ap.parse_args()
    for weights, by_seed in read_regret(a.jsonl, a.weights, a.seeds).items():
        print(summary(weights, list(by_seed.values()), a.noise))


if __name__ == "__main__":
    main()
