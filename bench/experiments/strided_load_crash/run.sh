#!/usr/bin/env bash
# The strided-load crash (docs/SEARCH.md, "Stack alignment on AVX-512"), hunted through the
# search: for each seed, the candidate searches autotuning runs (SEXTANT_CANDIDATES: the beam
# pick, a greedy search, beam-4 dropout searches; 16 per seed) on the test pipeline
# strided_pyramid, each built with the plugin and run once by sextant-time (a crash is exit 139
# or a signal in its log). Prints one line per candidate.
#
#   bench/experiments/strided_load_crash/run.sh PLUGIN.so OUT FIRST_SEED LAST_SEED
#
# Session 25: seeds 0-5, the plugin before the rule (git 73521a8) and after (a547986): 96 of 96
# candidates ran to completion with each. The hand schedule (the generator without
# auto_schedule) and test/integration/strided_pyramid_crash.txt replayed through the plugin
# before the rule crash with signal 11. Needs build/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
[[ $# -eq 4 ]] || { sed -n 2,13p "$0"; exit 2; }
plugin=$(realpath "$1") out=$2 first=$3 last=$4
gen=$ROOT/build/test/integration/sextant_test_generators
time=$ROOT/build/measure/sextant-time
target=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' "$ROOT/build/CMakeCache.txt")
args=(-g strided_pyramid -p "$plugin" -s Sextant auto_schedule=true machine_params=2,16777216,40
      "target=$target")
mkdir -p "$out"
for ((seed = first; seed <= last; seed++)); do
    sd=$out/seed$seed
    mkdir -p "$sd"
    SEXTANT_CANDIDATES=$sd SEXTANT_SEED=$seed HL_RANDOM_DROPOUT=50 HL_BEAM_SIZE=32 \
        "$gen" "${args[@]}" -o "$sd" -e schedule -f sp > "$sd/gen.log" 2>&1 ||
        { echo "seed $seed: the candidate search failed ($sd/gen.log)"; continue; }
    n=$("$ROOT/scripts/split_candidates.py" "$sd/candidates.jsonl" "$sd")
    for ((i = 0; i < n; i++)); do
        c=$sd/c$i
        mkdir -p "$c"
        if ! SEXTANT_SCHEDULE_FILE=$sd/c$i.txt "$gen" "${args[@]}" -o "$c" -e object -f sp \
            > "$c/gen.log" 2>&1; then
            echo "seed $seed c$i refused: $(tail -c 200 "$c/gen.log")"
            continue
        fi
        c++ -shared -o "$c/sp.so" "$c/sp.o"
        "$time" --time-one --max-runs 1 "$c/sp.so:sp" > "$c/run.log" 2>&1
        echo "seed $seed c$i exit $?"
    done
done
