#!/bin/bash
# run.sh FROM TO: random pipelines' beam-32 picks with serial_inside_sites on (A) and off (B)
cd /work/main
T=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' build/CMakeCache.txt)
for s in $(seq $1 $2); do
  for v in 1 0; do
    D=/tmp/s74/rnd/g$v; mkdir -p $D
    env SEXTANT_COST_MODEL=analytical SEXTANT_TIME_LIMIT=0 HL_BEAM_SIZE=32 SEXTANT_SEARCH_SPACE=serial_inside_sites=$v SEXTANT_DUMP_SCHEDULE=/tmp/s74/rnd/$v/$s.txt \
      build/random_pipelines/random_pipeline.generator -g random_pipeline -f f -o $D -e schedule -p build/plugin/libautoschedule_sextant.so -s Sextant auto_schedule=true machine_params=2,33554432,40 target=$T-no_runtime seed=$s min_extent=256 max_input_points=4194304 max_work=3e8 > $D/log 2>&1 || echo "seed $s v$v failed"
  done
  cmp -s /tmp/s74/rnd/1/$s.txt /tmp/s74/rnd/0/$s.txt || echo "DIFF $s"
done
echo DONE
