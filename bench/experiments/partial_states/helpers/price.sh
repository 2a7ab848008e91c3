#!/bin/bash
# price.sh P SCHEDULE.txt [ENV=VAL...]  -> prints predicted line; full log in /tmp/s73/price/P.log
P=$1; S=$(readlink -f $2); shift 2
D=/tmp/s73/price/$P.$$; mkdir -p $D
cd /work/main
env HL_BEAM_SIZE=${BEAM:-32} SEXTANT_TIME_LIMIT=0 SEXTANT_SCHEDULE_FILE=$S "$@" build/bench/sextant_bench_generators -g $P -f f -o $D -e schedule -p build/plugin/libautoschedule_sextant.so -s Sextant auto_schedule=true machine_params=2,16777216,40 target=x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41-no_runtime > $D/log 2>&1
grep -o "predicted [0-9.e+-]* ms" $D/f.schedule.h | head -1
echo "log: $D/log"
