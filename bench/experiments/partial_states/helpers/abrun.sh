#!/bin/bash
# abrun.sh ADIR BDIR OUT: time A vs B for every pipeline whose picks differ (3 rounds)
A=$1; B=$2; OUT=$3; : > $OUT
for f in $B/*.txt; do P=$(basename $f .txt)
  cmp -s $f $A/$P.txt && continue
  /tmp/s73/bin/ab.sh $P 3 $OUT $A/$P.txt $f
done
echo DONE >> $OUT
