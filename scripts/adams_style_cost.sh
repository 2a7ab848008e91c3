#!/usr/bin/env bash
# Per-sample cost of the Adams2019-style sampling path (Halide's autotune_loop.sh), for
# comparison with sextant-sample (docs/SAMPLING.md). Each sample is three processes:
#   1. the random pipeline Generator with the Sextant plugin (search + AOT compile):
#      -e static_library,h,registration,featurization
#   2. c++ link of RunGenMain.cpp + the registration + the static library into a benchmark
#   3. the benchmark binary (--estimate_all --benchmarks=all)
# Usage: scripts/adams_style_cost.sh BUILD_DIR FIRST_SEED NUM_SEEDS [WORKDIR]
# With PRECOMPILED_RUNGEN=1, RunGenMain.cpp is compiled once up front (not counted) and each
# sample only links it (an optimisation autotune_loop.sh does not make).
# Prints per-phase seconds per sample and samples/hour (serial, as measured; and with the
# generator+link phases spread over all cores, as autotune_loop.sh does for a batch).
set -euo pipefail
BUILD=${1:?build dir}
FIRST=${2:-300}
N=${3:-3}
WORK=${4:-$(mktemp -d /tmp/sextant-adams-XXXXXX)}
GEN=$BUILD/random_pipelines/random_pipeline.generator
PLUGIN=$BUILD/plugin/libautoschedule_sextant.so
RUNGEN=/usr/src/halide14/RunGenMain.cpp
CORES=$(nproc)
# The host target without AVX512_SapphireRapids (see default_run_target()).
TARGET=x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_skylake-f16c-fma-sse41
now() { date +%s.%N; }
tg=0; tl=0; tb=0; ok=0
RUNGEN_SRC=$RUNGEN
if [[ ${PRECOMPILED_RUNGEN:-0} == 1 ]]; then
    c++ -std=c++17 -O2 -I /usr/include/halide14 -DHALIDE_NO_PNG -DHALIDE_NO_JPEG -c "$RUNGEN" \
        -o "$WORK/RunGenMain.o"
    RUNGEN_SRC=$WORK/RunGenMain.o
fi
for ((i = 0; i < N; i++)); do
    seed=$((FIRST + i))
    D=$WORK/$seed
    mkdir -p "$D"
    t0=$(now)
    HL_SEED=$seed HL_RANDOM_DROPOUT=50 HL_BEAM_SIZE=1 \
        "$GEN" -g random_pipeline -f rp -o "$D" \
        -e static_library,h,registration,featurization \
        target=$TARGET auto_schedule=true machine_params=$CORES,33554432,40 seed=$seed \
        -p "$PLUGIN" -s Sextant 2> "$D/compile_log.txt"
    t1=$(now)
    c++ -std=c++17 -O2 -I /usr/include/halide14 "$RUNGEN_SRC" "$D"/rp.registration.cpp "$D"/rp.a \
        -o "$D/bench" -DHALIDE_NO_PNG -DHALIDE_NO_JPEG -ldl -lpthread
    t2=$(now)
    HL_NUM_THREADS=$CORES "$D/bench" --estimate_all --benchmarks=all > "$D/bench.txt" 2>&1
    t3=$(now)
    g=$(echo "$t1 - $t0" | bc); l=$(echo "$t2 - $t1" | bc); b=$(echo "$t3 - $t2" | bc)
    echo "seed $seed: generator ${g}s, link ${l}s, benchmark ${b}s: $(grep -o 'best case of [0-9.e-]* sec/iter' "$D/bench.txt" | head -1)"
    tg=$(echo "$tg + $g" | bc); tl=$(echo "$tl + $l" | bc); tb=$(echo "$tb + $b" | bc)
    ok=$((ok + 1))
done
per=$(echo "scale=3; ($tg + $tl + $tb) / $ok" | bc)
par=$(echo "scale=3; ($tg + $tl) / $ok / $CORES + $tb / $ok" | bc)
echo "adams-style per sample: generator $(echo "scale=2; $tg / $ok" | bc) s, link $(echo "scale=2; $tl / $ok" | bc) s, benchmark $(echo "scale=2; $tb / $ok" | bc) s = $per s"
echo "adams-style samples/hour: serial $(echo "scale=0; 3600 / $per" | bc), with generator+link on $CORES cores $(echo "scale=0; 3600 / $par" | bc)"
