import sys, re, math
# ratio.py FILE...: per pipeline, each schedule's min over the first's (from sextant-autotune --remeasure
# outputs, one "== P" header per pipeline); the geomeans; the best per pipeline (oracle)
rows = {}
for fn in sys.argv[1:]:
    cur = None
    for line in open(fn):
        m = re.match(r'== (\S+)', line)
        if m: cur = m.group(1); rows[cur] = []; continue
        m = re.search(r'(\S+): min ([0-9.]+) ms', line)
        if m and cur: rows[cur].append(float(m.group(2)))
n = max(len(v) for v in rows.values())
logs = [[] for _ in range(n)]; orc = []
for p, v in rows.items():
    if len(v) != n: print(p, "missing", v); continue
    r = [x / v[0] for x in v]
    for i in range(n): logs[i].append(math.log(r[i]))
    orc.append(math.log(min(r)))
    print(f"{p:30s} " + " ".join(f"{x:9.3f}" for x in v) + "   " + " ".join(f"{x:.3f}" for x in r[1:]))
g = lambda l: round(math.exp(sum(l) / len(l)), 4)
print("geomean", [g(l) for l in logs[1:]], "oracle", g(orc), "n", len(orc))
