#!/bin/bash
# price every pick dir under the analytical model and under the wp2 ensemble
for d in /tmp/s75/WB /tmp/s75/PBb /tmp/s75/P4 /tmp/s75/P10 /tmp/s76/A5 /tmp/s76/A2 /tmp/s76/C1 /tmp/s76/C10 /tmp/s76/C1b /tmp/s76/C2; do
  n=$(basename $d)
  [ -s /tmp/s76/price/${n}_analytical.tsv ] || /tmp/s75/priceall.sh $d /tmp/s76/price/${n}_analytical.tsv SEXTANT_COST_MODEL=analytical
  [ -s /tmp/s76/price/${n}_wp2.tsv ] || /tmp/s75/priceall.sh $d /tmp/s76/price/${n}_wp2.tsv SEXTANT_COST_MODEL=learned SEXTANT_LEARNED_SEARCH=beam SEXTANT_WEIGHTS=/tmp/s75/wp2/sextant.sxw
done
echo DONE
