#!/bin/bash
# ab3.sh OUT DIR1 DIR2 ...: for every pipeline, time analytical (/tmp/s72/D) vs each DIR's pick, interleaved, 3 rounds
OUT=$1; shift; : > $OUT
for f in /tmp/s72/D/*.txt; do P=$(basename $f .txt)
  L=($f); for d in "$@"; do cmp -s $d/$P.txt $f || L+=($d/$P.txt); done
  [ ${#L[@]} -gt 1 ] || continue
  "$(dirname "$0")"/../../partial_states/helpers/ab.sh $P 3 $OUT "${L[@]}"
done
echo DONE >> $OUT
