#!/usr/bin/env python3
# table.py AB.txt NAME=DIR ... : ratios of each DIR's pick to the analytical pick (/tmp/s72/D), identical = 1
import re,math,sys,glob,os,filecmp
ab={};cur=None
for line in open(sys.argv[1]):
    m=re.match(r'== (\S+)',line)
    if m: cur=m.group(1); ab[cur]={}; continue
    m=re.match(r'(\S+)\.txt: min ([0-9.]+) ms',line)
    if m: ab[cur][os.path.dirname(m.group(1))]=float(m.group(2))
cols=[a.split('=') for a in sys.argv[2:]]
A='/tmp/s72/D'
allp=[os.path.basename(f)[:-4] for f in sorted(glob.glob(A+'/*.txt'))]
logs={c:[] for c,_ in cols}
print("%-28s %8s"%("pipeline","anal ms")+"".join("%8s"%c for c,_ in cols))
for p in allp:
    row="%-28s"%p; a=ab.get(p,{}).get(A)
    row+="%8.3f"%a if a else "%8s"%"-"
    for c,d in cols:
        if filecmp.cmp(d+'/'+p+'.txt',A+'/'+p+'.txt',shallow=False): r=1.0; row+="%8s"%"same"
        else: r=ab[p][d]/a; row+="%8.3f"%r
        logs[c].append(math.log(r))
    print(row)
for c,_ in cols: print("%s geomean %.3f worst %.3f"%(c,math.exp(sum(logs[c])/len(logs[c])),math.exp(max(logs[c]))))
