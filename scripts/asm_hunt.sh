#!/usr/bin/env bash
# The AVX-512 stack-alignment hunt on bench pipelines (docs/SEARCH.md, "Stack alignment on
# AVX-512"): for each seed, the candidate searches autotuning proposes (SEXTANT_CANDIDATES: the
# beam pick, a greedy one, beam-4 dropout searches; 16 per seed), each compiled to assembly with
# the bench generator and scanned by `sextant-fuzz --scan-assembly`. Every candidate's
# ScheduleText and, for a flagged one, its assembly are kept under OUT.
#
#   scripts/asm_hunt.sh PIPELINE FIRST_SEED LAST_SEED [OUT] [COST_MODEL]
#
# Prints one line per candidate; the last line counts candidates and hazards. Needs build/.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 3 ]] || { sed -n 2,10p "$0"; exit 2; }
p=$1 first=$2 last=$3 out=${4:-$ROOT/build/asm-hunt/$1} model=${5:-analytical}
gen=$ROOT/build/bench/sextant_bench_generators
plugin=$ROOT/build/plugin/libautoschedule_sextant.so
fuzz=$ROOT/build/tools/sextant-fuzz
target=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' "$ROOT/build/CMakeCache.txt")
for x in "$gen" "$plugin" "$fuzz"; do [[ -x $x || -f $x ]] || { echo "asm_hunt.sh: missing $x (scripts/setup.sh builds it)" >&2; exit 2; }; done
mkdir -p "$out"
run_gen() { # DIR EMIT [ENV...]
    local dir=$1 emit=$2; shift 2
    env "$@" SEXTANT_COST_MODEL="$model" HL_BEAM_SIZE=32 "$gen" -g "$p" -f f -n f -o "$dir" \
        -e "$emit" -p "$plugin" -s Sextant auto_schedule=true machine_params=2,16777216,40 \
        "target=$target-no_runtime" > "$dir/gen.log" 2>&1
}
candidates=0 hazards=0
for ((seed = first; seed <= last; seed++)); do
    sd=$out/seed$seed
    mkdir -p "$sd"
    run_gen "$sd" schedule SEXTANT_CANDIDATES="$sd" SEXTANT_SEED="$seed" HL_RANDOM_DROPOUT=50 ||
        { echo "seed $seed: the candidate search failed (see $sd/gen.log)"; continue; }
    n=$("$ROOT/scripts/split_candidates.py" "$sd/candidates.jsonl" "$sd")
    for ((i = 0; i < n; i++)); do
        cd_=$sd/c$i
        mkdir -p "$cd_"
        if ! run_gen "$cd_" assembly SEXTANT_SCHEDULE_FILE="$sd/c$i.txt"; then
            echo "seed $seed candidate $i: compile failed (see $cd_/gen.log)"
            continue
        fi
        candidates=$((candidates + 1))
        if r=$("$fuzz" --scan-assembly "$cd_/f.s" | tail -1); then
            rm -f "$cd_/f.s"
        else
            hazards=$((hazards + 1))
        fi
        echo "seed $seed candidate $i: $r"
    done
done
echo "$p: $candidates candidates compiled, $hazards with stack-alignment hazards"
