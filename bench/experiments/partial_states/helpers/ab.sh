#!/bin/bash
# ab.sh P ROUNDS OUTFILE A.txt B.txt [C.txt ...] : interleaved fresh-process timings (sextant-autotune --remeasure)
P=$1; R=$2; OUT=$3; shift 3
L=$(for f in "$@"; do readlink -f $f; done | paste -sd,)
D=/tmp/s73/ab/$P.$$; mkdir -p $D
cd /work/main; echo "== $P" >> /dev/null
SEXTANT_BENCH_PIPELINE=$P build/tools/sextant-autotune --generator build/bench/sextant_bench_generators -g $P --dir $D --machine-params 2,16777216,40 --remeasure $L --rounds $R > $D/log 2>&1
rc=$?; cd - >/dev/null; echo "== $P" >> $OUT; echo "rc=$rc" >> $OUT; cat $D/log >> $OUT
