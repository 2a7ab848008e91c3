#!/usr/bin/env python3
"""Draws an autotuning run's curve: best measured runtime against measurement number, batch and
wall time. Usage: plot_autotune.py measurements.jsonl curve.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass  # a line cut short by an interruption
    ok = [r for r in rows if isinstance(r.get("runtime_seconds"), (int, float))]
    if not ok:
        sys.exit("no successful measurements to plot")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    n = [r["n"] for r in ok]
    ms = [r["runtime_seconds"] * 1e3 for r in ok]
    best = [r["best_seconds"] * 1e3 for r in ok]
    a.scatter(n, ms, s=12, c=[r["batch"] for r in ok], cmap="viridis", label="measured")
    a.step(n, best, where="post", color="crimson", label="best so far")
    base = [r for r in ok if r.get("baseline")]
    if base:
        a.axhline(base[0]["runtime_seconds"] * 1e3, color="gray", ls="--", label="untuned Sextant")
    a.set_xlabel("measurement")
    a.set_ylabel("runtime (ms)")
    a.set_yscale("log")
    a.legend()
    a.set_title("measured schedules (colour: batch)")
    t = [r["elapsed_s"] / 60 for r in ok]
    b.step(t, best, where="post", color="crimson")
    b.set_xlabel("wall time (min)")
    b.set_ylabel("best runtime (ms)")
    b.set_title("best runtime against time")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
