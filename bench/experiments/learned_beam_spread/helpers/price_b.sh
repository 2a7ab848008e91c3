#!/bin/bash
for d in /tmp/s72/D /tmp/s75/PBb /tmp/s76/C1b; do n=$(basename $d)
  [ -s /tmp/s76/price/${n}_wp2b.tsv ] || /tmp/s75/priceall.sh $d /tmp/s76/price/${n}_wp2b.tsv SEXTANT_COST_MODEL=learned SEXTANT_LEARNED_SEARCH=beam SEXTANT_WEIGHTS=/tmp/s75/wp2b/sextant.sxw
done; echo DONE
