#!/bin/bash
# picks.sh OUTDIR [ENV=VAL...]: the 27 bench picks (beam 32) as ScheduleTexts in OUTDIR/P.txt
OUT=$(readlink -f $1); shift; mkdir -p $OUT
PIPES=${PIPES:-"bilateral_grid bilateral_guided_upsampling box_blur camera_pipe camera_pipe_planar conv_relu depthwise_separable_conv harris histogram_equalize iir_blur interpolate local_laplacian matmul max_filter nl_means stencil_chain stencil_chain_32 unsharp_mask wavelet_denoise stereo_match chroma_420 bloom edge_detect guided_filter jpeg_roundtrip median_3x3 resize_bicubic"}
cd /work/main
for P in $PIPES; do
  D=$OUT/gen/$P; mkdir -p $D
  s=$(date +%s.%N)
  env HL_BEAM_SIZE=${BEAM:-32} SEXTANT_TIME_LIMIT=0 SEXTANT_DUMP_SCHEDULE=$OUT/$P.txt "$@" build/bench/sextant_bench_generators -g $P -f f -o $D -e schedule -p build/plugin/libautoschedule_sextant.so -s Sextant auto_schedule=true machine_params=2,16777216,40 target=x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41-no_runtime > $D/log 2>&1
  echo "$P rc=$? $(echo "$(date +%s.%N) - $s" | bc) s $(grep -o 'predicted [0-9.e+-]* ms' $D/f.schedule.h | head -1)"
done
