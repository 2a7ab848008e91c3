import sys,re,math
# ratios.py AB.txt : per pipeline B/A (min), geomean over listed and over 27 (identical = 1)
cur=None; res={}
for l in open(sys.argv[1]):
    if l.startswith('== '): cur=l[3:].strip(); res[cur]=[]
    m=re.search(r'(\S+)\.txt: min ([0-9.]+) ms',l)
    if m and cur: res[cur].append(float(m.group(2)))
lr=[]
for p,v in sorted(res.items()):
    if len(v)<2: print(p,'MISSING',v); continue
    r=v[1]/v[0]; lr.append(math.log(r)); print(f"{p:28s} {v[0]:9.3f} {v[1]:9.3f} {r:6.3f}")
n=len(lr); g=math.exp(sum(lr)/n) if n else 1
print(f"geomean over {n}: {g:.3f}; over 27: {math.exp(sum(lr)/27):.3f}; worst {math.exp(max(lr)):.3f}")
