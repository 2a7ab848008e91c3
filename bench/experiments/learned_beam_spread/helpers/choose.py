#!/usr/bin/env python3
# choose.py: among the analytical pick and eleven learned beams' picks, the one each model prices
# cheapest, and its measured ratio to the analytical pick (twelve_beams' ratios)
import math, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from twelve_beams import ratios
allp, R = ratios()
def load(f):
    return {l.split('\t')[0]: float(l.split('\t')[1]) for l in open(f) if l.strip() and l.split('\t')[1].strip()}
dirs = {'p2': 'PB', 'noprefix': 'WB', 'p2b': 'PBb', 'p4': 'P4', 'p2x10': 'P10', 'blend5': 'A5', 'blend2': 'A2',
        'p2c1': 'C1', 'p2x10c1': 'C10', 'p2bc1': 'C1b', 'p2c2': 'C2'}
price = {'analytical': {}, 'wp2': {}}
price['analytical']['A'] = load('/tmp/s75/A_analytical.tsv'); price['wp2']['A'] = load('/tmp/s75/A_wp2.tsv')
for n, d in dirs.items():
    for m in ('analytical', 'wp2'):
        f = '/tmp/s76/price/%s_%s.tsv' % (d, m)
        if d == 'PB':
            f = '/tmp/s75/PB_analytical.tsv' if m == 'analytical' else None
        if f: price[m][n] = load(f)
# PB under wp2 from prices.tsv
rows = [l.rstrip('\n').split('\t') for l in open('/work/main/bench/experiments/partial_states/prices.tsv')]
i = rows[0].index('prefix2_beam:prefix2'); price['wp2']['p2'] = {r[0]: float(r[i]) for r in rows[1:]}
def choice(prices, p, subset, margin=0.0):
    """The run whose pick `prices` (run -> pipeline -> ms) prices cheapest for pipeline p, None
    for the analytical pick (kept unless another is `margin` cheaper), and its price ratio."""
    a = prices['A'][p]; best, bn = a * (1 - margin), None
    for n in subset:
        v = prices[n].get(p)
        if v is not None and v < best: best, bn = v, n
    return bn, (best if bn else a) / a

def rule(prices, subset, margin=0.0):
    logs = []
    for p in allp:
        bn, _ = choice(prices, p, subset, margin)
        logs.append(math.log(R[p][bn]) if bn else 0.0)
    return math.exp(sum(logs) / len(logs)), math.exp(max(logs))

for m in ('analytical', 'wp2'):
    for margin in (0, 0.02, 0.05):
        print("choose by %-10s margin %.2f: geomean %.3f worst %.2f" % ((m, margin) + rule(price[m], dirs, margin)))
print()
for p in allp:
    bn, ratio = choice(price['wp2'], p, dirs)
    print("%-28s %-9s %.3f  price %.3f" % (p, bn or 'A', R[p][bn] if bn else 1.0, ratio))
print()
for s in [['p2'],['p2','p2c1'],['p2','p2c1','p2c2'],['p2','p2c1','p2c2','blend2'],['p2','p2c1','p2c2','blend2','blend5'],['p2c1','p2c2'],['p2','blend2'],['p2','p2c2']]:
    print(s, "%.3f worst %.2f" % rule(price['wp2'], s))
print()
pb = {'A': load('/tmp/s76/price/D_wp2b.tsv'), 'p2b': load('/tmp/s76/price/PBb_wp2b.tsv'), 'p2bc1': load('/tmp/s76/price/C1b_wp2b.tsv')}
for s in (['p2b'], ['p2bc1'], ['p2b', 'p2bc1']):
    if len(s) == 2:
        for p in allp:
            bn, _ = choice(pb, p, s)
            print("   %-28s %-6s %.3f" % (p, bn or 'A', R[p][bn] if bn else 1.0))
    print("seeds 11-15", s, "%.3f worst %.2f" % rule(pb, s))
