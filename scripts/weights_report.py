#!/usr/bin/env python3
"""Markdown summary of a sextant-train report.json: first, when given, the search regret of the
weights on held-out pipelines (`sextant-sample --regret`: what the search picks with them, timed
against the analytical model's pick and the best known schedule); then the data, held-out
ranking metrics of the learned model next to the analytical model's on the same pipelines, and
the epoch history.

    scripts/weights_report.py DIR/report.json [--regret DIR/regret.jsonl] > DIR/REPORT.md
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regret_report  # noqa: E402


def row(name, m):
    return "| %s | %d | %d | %d | %.3f | %.3f | %.3f | %.2f | %.3f |" % (
        name, m["pipelines"], m["samples"], m["pairs"], m["pairwise_accuracy"],
        m["kendall_tau"], m["top1_regret_geomean"], m["top1_regret_max"],
        m["mean_abs_log_error"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--regret", help="sextant-sample --regret output for these weights")
    a = ap.parse_args()
    with open(a.report) as f:
        r = json.load(f)
    d, m = r["data"], r["metrics"]
    out = ["# Training report", ""]
    if a.regret:
        for weights, by_seed in regret_report.read_regret(a.regret).items():
            out.append(regret_report.summary("Search regret on held-out pipelines (" + weights +
                                             ")", list(by_seed.values())))
            out.append("Each seed's learned pick, analytical pick and best known schedule "
                       "compiled and timed interleaved in fresh processes (`sextant-sample "
                       "--regret`; docs/COSTMODEL.md, \"Judging a model by its picks\"). "
                       "Regret: a pick's time over the fastest of the three.\n")
    out.append("%d samples of %d random pipelines; %d pipelines (%d samples) held out for "
               "validation by hash (%d%%). %d epochs, best epoch %d (by held-out pairwise "
               "accuracy); %s ranking loss, learning rate %g, pair temperature %g, absolute "
               "weight %g." % (
                   d["samples"], d["pipelines"], d["validation_pipelines"],
                   d["validation_samples"], d["validation_percent"], d["epochs"],
                   d["best_epoch"], d.get("ranking_loss", "pairwise"), d["learning_rate"],
                   d["pair_temperature"], d["absolute_weight"]))
    out.append("")
    out.append("Pairwise accuracy: share of same-pipeline pairs (runtimes differing by more "
               "than 5%, the tie threshold of docs/SAMPLING.md) ordered correctly. Kendall tau: rank correlation per pipeline, "
               "averaged. Top-1 regret: measured runtime of the schedule the model ranks first "
               "over the fastest measured one (1 = perfect), geomean and max over pipelines.")
    out.append("")
    out.append("| model | pipelines | samples | pairs | pairwise acc | Kendall tau | "
               "top-1 regret (geomean) | top-1 regret (max) | mean abs log error |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    out.append(row("learned, held out", m["validation"]))
    if "baseline" in m:
        out.append(row("analytical, same held-out set", m["baseline"]["validation"]))
    out.append(row("learned, training set", m["train"]))
    if "baseline" in m:
        out.append(row("analytical, training set", m["baseline"]["train"]))
    out.append("")
    out.append("Scatter plot of predicted vs measured runtimes: `scatter.png` (data in "
               "`scatter.csv` of the training directory).")
    out.append("")
    out.append("| epoch | loss | held-out pairwise acc | Kendall tau | top-1 regret |")
    out.append("|---:|---:|---:|---:|---:|")
    for h in r["history"]:
        out.append("| %d | %.4f | %.3f | %.3f | %.3f |" % (
            h["epoch"], h["loss"], h["val_pairwise_accuracy"], h["val_kendall_tau"],
            h["val_top1_regret_geomean"]))
    print("\n".join(out))


if __name__ == "__main__":
    main()
