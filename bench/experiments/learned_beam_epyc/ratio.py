import sys, re, math
# ratio.py FILE...: per-pipeline B/A (min times) from ab.sh outputs
rows = {}
for fn in sys.argv[1:]:
    cur = None
    for line in open(fn):
        m = re.match(r'== (\S+)', line)
        if m: cur = m.group(1); rows[cur] = []; continue
        m = re.search(r': min ([0-9.]+) ms, median ([0-9.]+) ms', line)
        if m and cur: rows[cur].append((float(m.group(1)), float(m.group(2))))
out = {}
for p, v in rows.items():
    if len(v) == 2: out[p] = v[1][0] / v[0][0]; print(f"{p:30s} A {v[0][0]:9.3f}  B {v[1][0]:9.3f}  B/A {out[p]:.3f}")
    else: print(p, "missing", v)
if out: print("geomean", round(math.exp(sum(math.log(x) for x in out.values()) / len(out)), 4), "n", len(out))
