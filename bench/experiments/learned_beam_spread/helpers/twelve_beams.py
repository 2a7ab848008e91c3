#!/usr/bin/env python3
# twelve_beams.py: each learned beam's pick / the analytical pick on the 27 bench pipelines, from
# the interleaved timing logs of sessions 75-76 (paths as run; README maps them to this folder
# and ../partial_states), with each pipeline's count of wins and losses by more than 5%, each
# beam's geomean and worst, and the oracle over all of them. Identical picks count as 1.
import re, math, glob, os, filecmp

def parse(f):
    ab, cur = {}, None
    for line in open(f):
        m = re.match(r'== (\S+)', line)
        if m:
            cur = m.group(1); ab[cur] = {}; continue
        m = re.match(r'(\S+)\.txt: min ([0-9.]+) ms', line)
        if m:
            ab[cur][os.path.dirname(m.group(1))] = float(m.group(2))
    return ab

A = '/tmp/s72/D'
runs = [('shipped', '/tmp/s75/ab_LB.txt', '/tmp/s75/LB'), ('noprefix', '/tmp/s75/ab_WB.txt', '/tmp/s75/WB'),
        ('p2', '/tmp/s76/ab_blend.txt', '/tmp/s75/PB'), ('p2b', '/tmp/s75/ab_PBb.txt', '/tmp/s75/PBb'),
        ('p4', '/tmp/s75/ab_P4.txt', '/tmp/s75/P4'), ('p2x10', '/tmp/s75/ab_P10.txt', '/tmp/s75/P10'),
        ('blend5', '/tmp/s76/ab_blend.txt', '/tmp/s76/A5'), ('blend2', '/tmp/s76/ab_blend.txt', '/tmp/s76/A2'),
        ('p2c1', '/tmp/s76/ab_caution.txt', '/tmp/s76/C1'), ('p2x10c1', '/tmp/s76/ab_caution.txt', '/tmp/s76/C10'),
        ('p2bc1', '/tmp/s76/ab_caution2.txt', '/tmp/s76/C1b'), ('p2c2', '/tmp/s76/ab_caution2.txt', '/tmp/s76/C2')]
def ratios():
    """The pipelines and R[pipeline][beam] = beam pick / analytical pick."""
    allp = [os.path.basename(f)[:-4] for f in sorted(glob.glob(A + '/*.txt'))]
    R = {}
    for name, f, d in runs:
        ab = parse(f)
        for p in allp:
            same = filecmp.cmp(d + '/' + p + '.txt', A + '/' + p + '.txt', shallow=False)
            R.setdefault(p, {})[name] = 1.0 if same else ab[p][d] / ab[p][A]
    return allp, R


def main():
    allp, R = ratios()
    print("%-28s" % "pipeline" + "".join("%8s" % n for n, _, _ in runs) + "  wins>5% losses>5%")
    for p in allp:
        rs = [R[p][n] for n, _, _ in runs]
        print("%-28s" % p + "".join("%8.2f" % r for r in rs) +
              "  %4d %4d" % (sum(r < 0.95 for r in rs), sum(r > 1.05 for r in rs)))
    print("%-28s" % "geomean" + "".join(
        "%8.3f" % math.exp(sum(math.log(R[p][n]) for p in allp) / len(allp)) for n, _, _ in runs))
    print("%-28s" % "worst" + "".join("%8.2f" % max(R[p][n] for p in allp) for n, _, _ in runs))
    best = [min(R[p][n] for n, _, _ in runs) for p in allp]
    print("oracle over the analytical pick and all 12: %.3f" %
          math.exp(sum(math.log(min(1, b)) for b in best) / len(allp)))


if __name__ == '__main__':
    main()
