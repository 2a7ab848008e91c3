#!/bin/bash
# priceall.sh DIR OUT.tsv [ENV..]: price each DIR/P.txt under the env; P<TAB>ms
DIR=$1; OUT=$2; shift 2
: > $OUT
for f in $DIR/*.txt; do P=$(basename $f .txt)
  ms=$(/tmp/s73/bin/price.sh $P $f "$@" | head -1 | awk '{print $2}')
  echo -e "$P\t$ms" >> $OUT
done
