#!/usr/bin/env python3
"""Draws predicted vs measured seconds (log-log) from sextant-train's scatter.csv.

Usage: plot_scatter.py scatter.csv scatter.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    points = {}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            m, p = float(row["measured_seconds"]), float(row["predicted_seconds"])
            if m > 0 and p > 0:
                points.setdefault(row["split"], []).append((m, p))
    fig, ax = plt.subplots(figsize=(6, 6))
    lo, hi = float("inf"), 0.0
    for split, colour in (("train", "tab:blue"), ("validation", "tab:orange")):
        pts = points.get(split, [])
        if not pts:
            continue
        xs, ys = zip(*pts)
        lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
        ax.scatter(xs, ys, s=6, alpha=0.5, color=colour, label=f"{split} ({len(pts)})")
    if hi > 0:
        ax.plot([lo, hi], [lo, hi], color="grey", linewidth=1, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured seconds")
    ax.set_ylabel("predicted seconds")
    ax.set_title("Sextant cost model: predicted vs measured")
    ax.legend()
    fig.tight_layout()
    fig.savefig(dst, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
