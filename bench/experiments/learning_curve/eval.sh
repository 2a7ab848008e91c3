#!/bin/bash
# eval.sh W OUT: held-out metrics of weights W on valm.jsonl
/work/main/build/costmodel/sextant-train --data tiny.jsonl --data valm.jsonl --val-pipelines :heldout --init $1 --epochs 0 --out $2 --parallelism 2 --llc-bytes 33554432 --no-plot > $2.log 2>&1
grep 'validation:\|analytical model on' $2.log | python3 -c "
import sys,json
for l in sys.stdin:
    k,v=l.split(': ',1) if l.startswith('validation') else ('analytical', l.split('set: ',1)[1])
    d=json.loads(v); print(k, d['samples'], round(d['pairwise_accuracy'],4), round(d['kendall_tau'],4), round(d['top1_regret_geomean'],4))"
