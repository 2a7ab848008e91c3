#!/usr/bin/env python3
"""Summarizes `sextant-sample --regret` output: per weights file, over the seeds judged, the
geomean of the learned pick's time over the analytical pick's, each pick's regret (its time over
the fastest schedule timed for that pipeline: the two picks and the best known one), how often
each pick is the faster one by more than the noise, and the 10 worst learned picks, with a
bootstrap 95% interval of the geomean (seeds resampled with replacement).

    scripts/regret_report.py regret.jsonl [--weights FILE] [--noise 0.05] [--seeds A:B]
                             [--half selection|test] [--bootstrap 2000]

The held-out seeds are split in two halves by parity: even seeds are the selection half (compare
candidates on it as often as needed), odd seeds the test half, which judges a candidate to ship
once. `--half test` records each weights file (by content hash) it reports in
weights/test-half-ledger.jsonl and refuses to report the same weights twice (`--again`
overrides, and the ledger says so): a test half used to choose is a selection half.
"""
import argparse
import hashlib
import json
import math
import os
import random
import re
import sys


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


def bootstrap_interval(ratios, n=2000, seed=1):
    """Percentile bootstrap 95% interval of the geomean of `ratios` (resampled with
    replacement, `n` times, from a fixed seed so that a report is reproducible)."""
    if len(ratios) < 2 or n <= 0:
        return float("nan"), float("nan")
    rng = random.Random(seed)
    logs = [math.log(r) for r in ratios]
    means = sorted(sum(rng.choice(logs) for _ in logs) / len(logs) for _ in range(n))
    return math.exp(means[int(0.025 * n)]), math.exp(means[min(n - 1, int(0.975 * n))])


def in_half(seed, half):
    """The selection half holds the even seeds, the test half the odd ones."""
    return half is None or (seed % 2 == 0) == (half == "selection")


def file_hash(weights):
    """sha256 of what `weights` names: a weights file, a comma-separated list of them
    ("analytical" for the analytical model), or an ensemble weights file with its members
    (docs/COSTMODEL.md, "Ensembles"); None if a file cannot be read."""
    h = hashlib.sha256()
    for item in weights.split(","):
        if item == "analytical":
            h.update(b"analytical")
            continue
        try:
            with open(item, "rb") as f:
                data = f.read()
        except OSError:
            return None
        h.update(data)
        lines = data.split(b"\n", 2)
        if (len(lines) > 1 and lines[0] == b"SEXTANT-WEIGHTS"
                and b"sextant-cost-ensemble-v1" in lines[1]):
            manifest = json.loads(lines[1])
            h.update(json.dumps(manifest.get("caution")).encode())
            for m in manifest.get("members", []):
                named = m == "analytical" or os.path.isabs(m)
                sub = file_hash(m if named else os.path.join(os.path.dirname(item), m))
                if sub is None:
                    return None
                h.update(sub.encode())
    return h.hexdigest()[:16]


def use_test_half(weights, ledger, again, mode=None):
    """Records that `weights` (picking in `mode`: the lines' learned_candidates and
    learned_margin, how the learned model picks) was judged on the test half; False if it
    already was (and not `again`). A candidate is the weights and the mode together."""
    h = file_hash(weights) or weights
    if mode is not None:
        candidates, margin = mode
        if candidates is not None:
            h += f"/learned_candidates={candidates}"
        if margin:
            h += f"/learned_margin={margin}"
    used = []
    if os.path.exists(ledger):
        with open(ledger) as f:
            used = [json.loads(l) for l in f if l.strip()]
    if any(u["hash"] == h for u in used) and not again:
        print(f"regret_report: {weights} (sha256 {h}) was already judged on the test half "
              f"({ledger}); the test half judges a candidate once. Use --half selection to "
              f"compare, or --again to report it anyway (recorded).", file=sys.stderr)
        return False
    with open(ledger, "a") as f:
        f.write(json.dumps({"weights": weights, "hash": h, "again": bool(again)}) + "\n")
    return True


def summary(weights, lines, noise=0.05, heading="##", bootstrap=2000):
    """Markdown for one weights file's lines (a list of parsed JSON lines)."""
    ok = [j for j in lines if "error" not in j]
    failed = [j for j in lines if "error" in j]
    ratio = [j["learned_over_analytical"] for j in ok]
    lr = [j["learned_regret"] for j in ok]
    ar = [j["analytical_regret"] for j in ok]
    lo, hi = bootstrap_interval(ratio, bootstrap)
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
           f"(bootstrap 95% interval {lo:.3f} to {hi:.3f} over {len(ratio)} pipelines; "
           f"< 1: the learned model's picks are faster)", "",
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
    ap.add_argument("--half", choices=["selection", "test"],
                    help="only the selection half (even seeds) or the test half (odd seeds)")
    ap.add_argument("--bootstrap", type=int, default=2000,
                    help="bootstrap resamples for the 95%% interval (0: none)")
    ap.add_argument("--ledger", default=os.path.join(os.path.dirname(__file__), "..", "weights",
                                                     "test-half-ledger.jsonl"),
                    help="where --half test records the weights it judged")
    ap.add_argument("--again", action="store_true",
                    help="report the test half for weights it already judged (recorded)")
    a = ap.parse_args()
    status = 0
    for weights, by_seed in read_regret(a.jsonl, a.weights, a.seeds).items():
        lines = [j for s, j in by_seed.items() if in_half(s, a.half)]
        # The learned mode: how it picks and, ranking candidates, its trust margin (lines
        # before the margin existed had none: 0).
        modes = {(j.get("learned_candidates"), j.get("learned_margin") or 0) for j in lines}
        if len(modes) > 1:
            print(f"regret_report: {weights}: lines of several learned modes {sorted(map(str, modes))}"
                  "; judge each in a file of its own", file=sys.stderr)
            status = 1
            continue
        mode = modes.pop() if modes else None
        if a.half == "test" and not use_test_half(weights, a.ledger, a.again, mode):
            status = 1
            continue
        heading = "##" if a.half is None else f"## [{a.half} half]"
        print(summary(weights, lines, a.noise, heading, a.bootstrap))
    sys.exit(status)


if __name__ == "__main__":
    main()
