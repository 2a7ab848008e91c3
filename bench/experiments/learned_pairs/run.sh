#!/bin/bash
# run.sh OUT [ENV=VAL...]: every bench/pairs pair replayed with the given model env; prints
# STATUS PIPELINE faster_pred slower_pred RIGHT|WRONG
OUT=$1; shift; : > $OUT
cd /work/main
T=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' build/CMakeCache.txt)
grep -v '^#' bench/pairs/pairs.txt | grep -v '^$' | while read status pipe a b mach rest; do
  case $mach in @avx2) tgt=x86-64-linux-avx-avx2-f16c-fma-sse41;; @avx512) tgt=x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41;; *) tgt=$T;; esac
  if [[ $pipe == random:* ]]; then gen=(build/random_pipelines/random_pipeline.generator -g random_pipeline); params=(seed=${pipe#random:} min_extent=256 max_input_points=4194304 max_work=3e8 machine_params=2,33554432,40)
  else gen=(build/bench/sextant_bench_generators -g $pipe); params=(machine_params=2,16777216,40); fi
  preds=()
  for f in $a $b; do
    D=/tmp/s74/pairs/w/$$; rm -rf $D; mkdir -p $D
    env SEXTANT_SCHEDULE_FILE=$(readlink -f bench/pairs/$f) "$@" "${gen[@]}" -f p -n p -o $D -e schedule -p build/plugin/libautoschedule_sextant.so -s Sextant auto_schedule=true "${params[@]}" target=$tgt-no_runtime > $D/log 2>&1
    preds+=($(grep -o "predicted [0-9.e+-]* ms per run" $D/p.schedule.h | head -1 | awk '{print $2}'))
  done
  r=$(python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('RIGHT' if a<b else 'WRONG')" ${preds[0]:-0} ${preds[1]:-0})
  echo "$status $pipe ${preds[0]} ${preds[1]} $r" >> $OUT
done
