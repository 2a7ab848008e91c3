#!/usr/bin/env python3
"""Summarizes scripts/autotune_compare.sh: per pipeline, the untuned Sextant schedule's runtime,
the best runtime each loop found, and how many measurements each needed to come within 5% of
the best found by either. Usage: autotune_compare.py OUT_DIR PIPELINE..."""
import json
import os
import sys


def load(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    pass
    return [r for r in rows if isinstance(r.get("runtime_seconds"), (int, float))], rows


def first_within(ok, target):
    for r in ok:
        if r["runtime_seconds"] <= target * 1.05:
            return r["n"], r["elapsed_s"]
    return None, None


def main():
    out, pipes = sys.argv[1], sys.argv[2:]
    print("| pipeline | untuned ms | model-picked best ms | plain best ms | speedup vs untuned "
          "| measurements to 5% of best: model-picked | plain | minutes to 5%: model | plain |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    verified = []
    for p in pipes:
        m_ok, m_all = load(os.path.join(out, p, "model", "measurements.jsonl"))
        p_ok, p_all = load(os.path.join(out, p, "plain", "measurements.jsonl"))
        if not m_ok or not p_ok:
            print(f"| {p} | (missing runs) |||||||")
            continue
        best = min(r["runtime_seconds"] for r in m_ok + p_ok)
        base = [r["runtime_seconds"] for r in m_ok + p_ok if r.get("baseline")]
        base = min(base) if base else float("nan")
        mb = min(r["runtime_seconds"] for r in m_ok)
        pb = min(r["runtime_seconds"] for r in p_ok)
        mn, mt = first_within(m_ok, best)
        pn, pt = first_within(p_ok, best)

        def n(x, total):
            return str(x) if x is not None else f"not in {total}"

        def t(x):
            return f"{x / 60:.1f}" if x is not None else "-"

        print(f"| {p} | {base * 1e3:.3f} | {mb * 1e3:.3f} | {pb * 1e3:.3f} | "
              f"{base / min(mb, pb):.2f}x | {n(mn, len(m_all))} | {n(pn, len(p_all))} | "
              f"{t(mt)} | {t(pt)} |")
        vpath = os.path.join(out, p, "verify", "remeasure.json")
        if os.path.exists(vpath):
            with open(vpath) as f:
                v = json.load(f)
            if len(v) == 3 and all(x["min_seconds"] > 0 for x in v):
                verified.append((p, [x["min_seconds"] for x in v], [len(x["runs_seconds"]) for x in v]))
    if verified:
        print()
        print("Re-measured interleaved in one run (min over rounds):")
        print()
        print("| pipeline | untuned ms | model-picked best ms | plain best ms | "
              "model-picked speedup | plain speedup |")
        print("|---|---:|---:|---:|---:|---:|")
        for p, (u, m, pl), _ in verified:
            print(f"| {p} | {u * 1e3:.3f} | {m * 1e3:.3f} | {pl * 1e3:.3f} | {u / m:.2f}x | "
                  f"{u / pl:.2f}x |")


if __name__ == "__main__":
    main()
