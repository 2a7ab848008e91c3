#!/usr/bin/env python3
"""The same neighbourhood timed on two machines: does one machine's ranking hold on the other?

    compare_machines.py DIR_A DIR_B [--gap 0.05]

DIR_A, DIR_B: two unpacked neighbourhood directories (scripts/neighbourhood.sh's --out; e.g.
s57.tar.gz's s57 and s59-xeon.tar.gz's s59xeon) whose candidates are the same ScheduleTexts
(checked). Per pipeline, each candidate's minimum time over the pick's (00) on each machine;
then: how many neighbours both machines put more than --gap from the pick, and on the same
side; each machine's oracle (its fastest candidate); that choice on the other machine; and the
best single choice for both (the least product of the two ratios), a machine-blind ranker's
limit. Geomeans over the pipelines both directories hold."""
import argparse
import filecmp
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../scripts"))
from neighbourhood import read_times  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--gap", type=float, default=0.05)
    args = ap.parse_args()
    names = [os.path.basename(os.path.normpath(d)) for d in (args.a, args.b)]
    pipes = sorted(p for p in os.listdir(args.a)
                   if os.path.isfile(os.path.join(args.a, p, "times.tsv"))
                   and os.path.isfile(os.path.join(args.b, p, "times.tsv")))
    if not pipes:
        sys.exit("compare_machines.py: no pipeline timed in both directories")
    gap = math.log(1 + args.gap)
    same = opposite = near = 0
    logs = {k: 0.0 for k in ("oa", "ob", "a_on_b", "b_on_a", "blind_a", "blind_b")}
    print(f"{'pipeline':<28} {names[0] + ' best':>18} {names[1] + ' best':>18} {'one for both':>18}")
    for p in pipes:
        ta, tb = read_times(os.path.join(args.a, p)), read_times(os.path.join(args.b, p))
        ids = sorted(i for i in ta if i in tb)
        for i in ids:
            if not filecmp.cmp(os.path.join(args.a, p, f"{i:02d}.txt"),
                               os.path.join(args.b, p, f"{i:02d}.txt"), shallow=False):
                sys.exit(f"compare_machines.py: {p}/{i:02d}.txt differs between the directories")
        ra = {i: math.log(ta[i] / ta[0]) for i in ids}
        rb = {i: math.log(tb[i] / tb[0]) for i in ids}
        for i in ids:
            if i == 0:
                continue
            if abs(ra[i]) < gap or abs(rb[i]) < gap:
                near += 1
            elif (ra[i] < 0) == (rb[i] < 0):
                same += 1
            else:
                opposite += 1
        ia, ib = min(ids, key=ra.get), min(ids, key=rb.get)
        both = min(ids, key=lambda i: ra[i] + rb[i])
        logs["oa"] += ra[ia]
        logs["ob"] += rb[ib]
        logs["a_on_b"] += rb[ia]
        logs["b_on_a"] += ra[ib]
        logs["blind_a"] += ra[both]
        logs["blind_b"] += rb[both]
        cell = lambda i: f"{i:02d} {math.exp(ra[i]):.3f}/{math.exp(rb[i]):.3f}"
        print(f"{p:<28} {cell(ia):>18} {cell(ib):>18} {cell(both):>18}")
    g = {k: math.exp(v / len(pipes)) for k, v in logs.items()}
    print(f"\n(each cell: candidate, its time over the pick's on {names[0]} / on {names[1]})")
    print(f"{len(pipes)} pipelines; neighbours more than {args.gap:.0%} from the pick on both "
          f"machines: {same} on the same side, {opposite} on opposite sides; {near} within it "
          f"on one or both")
    print(f"oracle on {names[0]}: {g['oa']:.3f}; on {names[1]}: {g['ob']:.3f}")
    print(f"{names[0]}'s oracle choice on {names[1]}: {g['a_on_b']:.3f}; "
          f"{names[1]}'s on {names[0]}: {g['b_on_a']:.3f}")
    print(f"one choice for both machines: {g['blind_a']:.3f} on {names[0]}, "
          f"{g['blind_b']:.3f} on {names[1]}")


if __name__ == "__main__":
    main()
