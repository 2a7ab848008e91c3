#!/usr/bin/env python3
"""Learned vs analytical picks on random pipelines, from a SampleStore after an on-policy pass
(`sextant-sample --weights`): per workload that has both a `beam` (analytical) and a
`learned:beam` record, the runtime ratio of the two picks, and how close the best of each
model's candidates comes to the best measured schedule. --held-out keeps only the pipelines
sextant-train holds out for validation (FNV-1a-64 of the pipeline id % 100 < 15); --seeds A:B
only random pipelines of seeds [A, B) (one DAgger round's).

    scripts/onpolicy_report.py build-sampler/samples.db [--held-out] [--seeds A:B]
"""
import argparse
import os
import re
import sqlite3
import sys

from regret_report import geomean, seed_range


def fnv1a64(s):
    h = 1469598103934665603
    for ch in s.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db", help="a SampleStore (sextant-sample --db)")
    ap.add_argument("--held-out", action="store_true", help="only sextant-train's held-out pipelines")
    ap.add_argument("--seeds", type=seed_range, help="only random pipelines of seeds [A, B)")
    args = ap.parse_args()
    if not os.path.isfile(args.db):
        sys.exit("onpolicy_report.py: no sample store at '%s'" % args.db)
    db = sqlite3.connect("file:%s?mode=ro" % args.db, uri=True)
    held_only = args.held_out
    held, keep = set(), set()
    for w, ident in db.execute("SELECT id, identity FROM workloads"):
        if fnv1a64(ident) % 100 < 15:
            held.add(w)
        m = re.match(r"random:seed=(\d+):", ident)
        if args.seeds and m and args.seeds[0] <= int(m.group(1)) < args.seeds[1]:
            keep.add(w)
    by = {}
    for w, src, t, cs in db.execute("SELECT workload_id, source, runtime_min_s, compile_s FROM records"):
        by.setdefault(w, {})[src] = (t, cs)
    pick, comp, best_l, best_a = [], [], [], []
    for w, d in by.items():
        if (held_only and w not in held) or (args.seeds and w not in keep):
            continue
        a, l = d.get("beam"), d.get("learned:beam")
        if not a or not l or a[0] is None or l[0] is None or a[0] < 1e-5:
            continue  # failed, or too short to time (< 10 us)
        pick.append(l[0] / a[0])
        comp.append(max(l[1], 1e-3) / max(a[1], 1e-3))
        ok = [v[0] for v in d.values() if v[0]]
        ll = [v[0] for s, v in d.items() if v[0] and s.startswith("learned")]
        la = [v[0] for s, v in d.items() if v[0] and not s.startswith("learned")]
        best_l.append(min(ll) / min(ok))
        best_a.append(min(la) / min(ok))
    scope = (" (held out)" if held_only else "") + (" (seeds %d:%d)" % args.seeds if args.seeds else "")
    print("pipelines: %d%s" % (len(pick), scope))
    print("learned beam pick / analytical beam pick, runtime geomean: %.3f (better on %d, worse on %d)"
          % (geomean(pick), sum(x < 1 for x in pick), sum(x > 1 for x in pick)))
    print("compile time, same ratio: %.2f" % geomean(comp))
    print("best learned candidate / best measured: %.3f; best analytical candidate / best measured: %.3f"
          % (geomean(best_l), geomean(best_a)))


if __name__ == "__main__":
    main()
