#!/usr/bin/env python3
"""Learned vs analytical picks on random pipelines, from a SampleStore after an on-policy pass
(`sextant-sample --weights`): per workload that has both a `beam` (analytical) and a
`learned:beam` record, the runtime ratio of the two picks, and how close the best of each
model's candidates comes to the best measured schedule. --held-out keeps only the pipelines
sextant-train holds out for validation (FNV-1a-64 of the pipeline id % 100 < 15).

    scripts/onpolicy_report.py build-sampler/samples.db [--held-out]
"""
import math
import sqlite3
import sys


def fnv1a64(s):
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def geomean(v):
    return math.exp(sum(v) / len(v)) if v else float("nan")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    db = sqlite3.connect(sys.argv[1])
    held_only = "--held-out" in sys.argv
    held = {w for w, i in db.execute("SELECT id, identity FROM workloads") if fnv1a64(i) % 100 < 15}
    by = {}
    for w, src, t, cs in db.execute("SELECT workload_id, source, runtime_min_s, compile_s FROM records"):
        by.setdefault(w, {})[src] = (t, cs)
    pick, comp, best_l, best_a = [], [], [], []
    for w, d in by.items():
        if held_only and w not in held:
            continue
        a, l = d.get("beam"), d.get("learned:beam")
        if not a or not l or a[0] is None or l[0] is None or a[0] < 1e-5:
            continue  # failed, or too short to time (< 10 us)
        pick.append(math.log(l[0] / a[0]))
        comp.append(math.log(max(l[1], 1e-3) / max(a[1], 1e-3)))
        ok = [v[0] for v in d.values() if v[0]]
        ll = [v[0] for s, v in d.items() if v[0] and s.startswith("learned")]
        la = [v[0] for s, v in d.items() if v[0] and not s.startswith("learned")]
        best_l.append(math.log(min(ll) / min(ok)))
        best_a.append(math.log(min(la) / min(ok)))
    print("pipelines: %d%s" % (len(pick), " (held out)" if held_only else ""))
    print("learned beam pick / analytical beam pick, runtime geomean: %.3f (better on %d, worse on %d)"
          % (geomean(pick), sum(x < 0 for x in pick), sum(x > 0 for x in pick)))
    print("compile time, same ratio: %.2f" % geomean(comp))
    print("best learned candidate / best measured: %.3f; best analytical candidate / best measured: %.3f"
          % (geomean(best_l), geomean(best_a)))


if __name__ == "__main__":
    main()
