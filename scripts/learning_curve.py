#!/usr/bin/env python3
"""Learning curve table from scripts/learning_curve.sh's DIR/pP/sS/report.json files.

Per training percentage: its training samples, then the held-out pairwise accuracy, Kendall
tau and top-1 regret of each seed's last epoch (the nets train_weights.sh ships are last
epochs, so no epoch is chosen on the held-out pipelines) and their mean, beside the analytical
model's on the same held-out pipelines. Every run must hold out the same pipelines; a
directory whose runs do not is refused.

    scripts/learning_curve.py DIR
"""
import json
import pathlib
import sys


def load(directory):
    runs = {}
    for report in sorted(pathlib.Path(directory).glob("p*/s*/report.json")):
        percent = int(report.parent.parent.name[1:])
        d = json.loads(report.read_text())
        last = d["history"][-1]
        base = d["metrics"]["baseline"]["validation"]
        held = d["metrics"]["validation"]
        runs.setdefault(percent, []).append({
            "seed": report.parent.name[1:],
            "train_samples": d["data"]["train_samples"],
            "held": (held["pipelines"], held["samples"]),
            "nets": (last["val_pairwise_accuracy"], last["val_kendall_tau"],
                     last["val_top1_regret_geomean"]),
            "analytical": (base["pairwise_accuracy"], base["kendall_tau"],
                           base["top1_regret_geomean"]),
        })
    return runs


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1])
    if not runs:
        sys.exit(f"learning_curve.py: no p*/s*/report.json under {sys.argv[1]}")
    held = {r["held"] for rs in runs.values() for r in rs}
    if len(held) != 1:
        sys.exit(f"learning_curve.py: the runs hold out different pipelines {sorted(held)}: "
                 "not one curve")
    pipelines, samples = held.pop()
    analytical = next(iter(runs.values()))[0]["analytical"]
    print(f"held out: {pipelines} pipelines, {samples} samples; analytical model there: "
          f"pairwise {analytical[0]:.4f}, tau {analytical[1]:.4f}, top-1 {analytical[2]:.4f}")
    print(f"{'percent':>7} {'train samples':>13}  {'pairwise per seed':<30} "
          f"{'mean':>6} {'tau':>6} {'top-1':>6} {'vs analytical':>13}")
    for percent in sorted(runs):
        rs = runs[percent]
        mean = [sum(r["nets"][k] for r in rs) / len(rs) for k in range(3)]
        per_seed = " ".join(f"{r['nets'][0]:.4f}" for r in rs)
        print(f"{percent:>7} {rs[0]['train_samples']:>13}  {per_seed:<30} {mean[0]:>6.4f} "
              f"{mean[1]:>6.4f} {mean[2]:>6.4f} {mean[0] - analytical[0]:>+13.4f}")


if __name__ == "__main__":
    main()
