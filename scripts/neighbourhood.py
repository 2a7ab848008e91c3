#!/usr/bin/env python3
"""The table of scripts/neighbourhood.sh: per bench pipeline, the analytical pick's measured
runtime, its fastest neighbour (the oracle) and each model's choice among the same candidates
at trust margins 0, 2 and 5%, all as ratios to the pick, with geomeans over the pipelines.
"pairs" counts the neighbours a model orders right against the pick (faster or slower).

    scripts/neighbourhood.py DIR [--pipelines a,b]

The oracle is biased low: it is the minimum of N noisy timings, so it holds a share of the
timing noise as well as the neighbourhood's real gains.
"""
import argparse
import glob
import json
import math
import os
import sys

MARGINS = (0.0, 0.02, 0.05)


def read_times(d, column=1):
    """{candidate index: ms} from DIR/times.tsv: column 1 the minimum, 2 the median."""
    times = {}
    for line in open(os.path.join(d, "times.tsv")):
        row = line.split("\t")
        times[int(row[0])] = float(row[column])
    return times


def read_sources(d):
    return [json.loads(l)["source"] for l in open(os.path.join(d, "candidates.jsonl"))]


def read_preds(path, sources):
    """The ranking log's predicted ms: the stored candidates' (its first len(sources) entries,
    which must be theirs) and the cheapest of the candidates the learned mode ranks besides
    (its greedy and dropout picks, never timed here; None when it has none)."""
    pairs = [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
    got = [s for s, _ in pairs[: len(sources)]]
    if got != sources:
        raise SystemExit(f"{path}: the ranked candidates are not {os.path.dirname(path)}'s "
                         f"(the search changed since they were made?): {got[:3]}... vs {sources[:3]}...")
    extra = [float(ms) for _, ms in pairs[len(sources):]]
    return [float(ms) for _, ms in pairs[: len(sources)]], min(extra, default=None)


def check_pick(d, model, preds):
    """The ranking run's applied schedule must place every Func as the stored candidate it
    chose does: else the search made other candidates than the timed ones. (Placements only:
    replaying a text can normalise a loop of one iteration, so the applied text may differ
    from a mutation's in a tiling field and still be the schedule that was timed, which was
    replayed too.)"""
    pick = os.path.join(d, f"rank-{model}", "pick.txt")
    if not os.path.exists(pick):
        return
    placements = lambda path: [l for l in open(path) if l.startswith("func ")]
    if placements(pick) != placements(os.path.join(d, f"{choice(preds, 0):02d}.txt")):
        raise SystemExit(f"{pick}: not the stored candidate it ranked first (the search made "
                         "other candidates than the timed ones)")


def choice(preds, margin):
    c = min(range(len(preds)), key=lambda i: (preds[i], i))
    return c if preds[c] <= preds[0] * (1 - margin) else 0


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--pipelines", default="")
    a = ap.parse_args()
    pipelines = [p for p in a.pipelines.split(",") if p] or sorted(
        os.path.basename(os.path.dirname(t)) for t in glob.glob(os.path.join(a.dir, "*/times.tsv")))
    models = sorted({os.path.basename(f)[len("preds-"):-len(".txt")]
                     for f in glob.glob(os.path.join(a.dir, "*/preds-*.txt"))})
    head = f"{'pipeline':28s} {'n':>3s} {'pick ms':>9s} {'oracle':>7s}"
    for m in models:
        head += "  " + " ".join(f"{m[:10]}@{int(x * 100)}%".rjust(13) for x in MARGINS) + f" {'pairs':>6s}"
    print(head)
    oracle, chosen = [], {(m, x): [] for m in models for x in MARGINS}
    untimed_rows = 0
    for p in pipelines:
        d = os.path.join(a.dir, p)
        if not os.path.exists(os.path.join(d, "times.tsv")):
            print(f"{p:28s} (not timed)")
            continue
        t = read_times(d)
        if 0 not in t:
            print(f"{p:28s} (the pick failed to time)")
            continue
        sources = read_sources(d)
        best = min(t, key=t.get)
        oracle.append(t[best] / t[0])
        row = f"{p:28s} {len(t):3d} {t[0]:9.3f} {t[best] / t[0]:7.3f}"
        for m in models:
            f = os.path.join(d, f"preds-{m}.txt")
            if not os.path.exists(f):
                row += "  " + " ".join("-".rjust(13) for _ in MARGINS) + f" {'-':>6s}"
                continue
            preds, extra = read_preds(f, sources)
            # The run applied a candidate it ranks besides the timed ones (priced under all of
            # them): nothing to check its pick against; the row shows the model's choice among
            # the timed candidates, marked.
            applied_untimed = extra is not None and extra < min(preds)
            if not applied_untimed:
                check_pick(d, m, preds)
            untimed_rows += applied_untimed
            cells = []
            for x in MARGINS:
                c = choice(preds, x)
                r = t.get(c, float("nan")) / t[0]
                if c in t:
                    chosen[(m, x)].append(r)
                cells.append(f"#{c:<2d} {r:.3f}".rjust(13))
            right = sum(1 for k in t if k and (preds[k] < preds[0]) == (t[k] < t[0]))
            row += "  " + " ".join(cells) + f" {right:>3d}/{len(t) - 1:<2d}" + (
                "*" if applied_untimed else "")
        print(row)
    line = f"{'geomean':28s} {'':3s} {'':9s} {geomean(oracle):7.3f}"
    for m in models:
        line += "  " + " ".join(f"{geomean(chosen[(m, x)]):.3f}".rjust(13) for x in MARGINS) + " " * 7
    print(line)
    print(f"({len(oracle)} pipelines; the oracle is the fastest measured neighbour, biased low by "
          "the timing noise it selects)")
    if untimed_rows:
        print(f"(*: on {untimed_rows} row(s) the model prices a candidate it ranks besides these "
              "(a greedy or dropout pick, not timed) under all of them: the learned mode applies "
              "that one; the row shows its choice among the timed candidates)")


if __name__ == "__main__":
    sys.exit(main())
