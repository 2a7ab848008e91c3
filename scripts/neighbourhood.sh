#!/usr/bin/env bash
# The analytical pick's neighbourhood on the bench pipelines, measured, and how well a model
# ranks it (docs/COSTMODEL.md, "Ranking the pick's neighbourhood"). Per pipeline: the plugin's
# analytical pick (beam 32, no time limit) and N tweaks and N mutations of it
# (SEXTANT_CANDIDATES with SEXTANT_LEARNED_NEIGHBOURS=N), timed interleaved in fresh processes
# (sextant-autotune --remeasure, R rounds); then, per weights file, the learned mode's ranking
# of the same candidates (SEXTANT_COST_MODEL=learned SEXTANT_LEARNED_NEIGHBOURS=N, margin 0,
# its predictions read from the plugin's log). scripts/neighbourhood.py prints the table: the
# fastest neighbour (the oracle, biased low: the minimum of N noisy timings) and each model's
# choice at margins 0, 2 and 5%, as ratios to the pick.
#
#   scripts/neighbourhood.sh --out DIR [--neighbours 8] [--rounds 3] [--pipelines a,b]
#                            [--weights W.sxw]...   (repeatable; 'shipped' = the shipped weights)
#
# Resumable: a pipeline with DIR/P/times.tsv is not timed again, a model with
# DIR/P/preds-NAME.txt not asked again. Timing needs a quiet machine: run nothing beside it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${BUILD:-$ROOT/build}" && pwd)
gen=$build/bench/sextant_bench_generators
plugin=$build/plugin/libautoschedule_sextant.so
autotune=$build/tools/sextant-autotune
out="" neighbours=8 rounds=3 pipelines="" weights=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) out=$2; shift 2 ;;
        --neighbours) neighbours=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --pipelines) pipelines=$2; shift 2 ;;
        --weights) weights+=("$2"); shift 2 ;;
        *) sed -n 2,17p "$0"; exit 2 ;;
    esac
done
[[ -n $out ]] || { sed -n 2,17p "$0"; exit 2; }
for x in "$gen" "$plugin" "$autotune"; do
    [[ -x $x || -f $x ]] || { echo "neighbourhood.sh: missing $x (build first)" >&2; exit 2; }
done
target=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' "$build/CMakeCache.txt")
mkdir -p "$out"
if [[ -z $pipelines ]]; then
    # GenGen lists its generators when asked for none; synthetic_200's search alone takes minutes.
    pipelines=$({ "$gen" -o "$out" 2>&1 || true; } | sed -n 's/^    \([a-z0-9_]*\)$/\1/p' |
                grep -v '^synthetic_200$' | paste -sd, -)
fi
IFS=, read -r -a list <<<"$pipelines"

schedule() { # P DIR ENV...: the plugin on bench pipeline P, its log in DIR/gen.log
    local p=$1 dir=$2
    shift 2
    env HL_BEAM_SIZE=32 SEXTANT_TIME_LIMIT=0 SEXTANT_DEBUG=1 "$@" \
        "$gen" -g "$p" -f f -o "$dir" -e schedule -p "$plugin" -s Sextant auto_schedule=true \
        machine_params=2,16777216,40 "target=$target-no_runtime" >"$dir/gen.log" 2>&1
}

for p in "${list[@]}"; do
    d=$out/$p
    mkdir -p "$d"
    if [[ ! -s $d/candidates.jsonl ]]; then
        schedule "$p" "$d" SEXTANT_COST_MODEL=analytical SEXTANT_CANDIDATES="$d" \
            SEXTANT_NUM_CANDIDATES=$((1 + 2 * neighbours)) SEXTANT_LEARNED_NEIGHBOURS="$neighbours" ||
            { echo "neighbourhood.sh: $p: the plugin failed (see $d/gen.log)" >&2; exit 1; }
        python3 - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
for line in open(f"{d}/candidates.jsonl"):
    j = json.loads(line)
    open(f"{d}/{j['index']:02d}.txt", "w").write(j["schedule_text"])
EOF
    fi
    if [[ ! -s $d/times.tsv ]]; then
        files=$(ls "$d"/[0-9][0-9].txt | paste -sd, -)
        rm -rf "$d/remeasure"
        SEXTANT_BENCH_PIPELINE=$p "$autotune" --generator "$gen" -g "$p" --dir "$d/remeasure" \
            --machine-params 2,16777216,40 --remeasure "$files" --rounds "$rounds" \
            >"$d/remeasure.log" 2>&1 ||
            { echo "neighbourhood.sh: $p: timing failed (see $d/remeasure.log)" >&2; exit 1; }
        # "DIR/07.txt: min 1.2345 ms, median 1.3 ms over 3 rounds" -> "7<TAB>1.2345<TAB>1.3"
        sed -n 's#.*/\([0-9][0-9]\)\.txt: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*#\1\t\2\t\3#p' \
            "$d/remeasure.log" >"$d/times.tsv.new"
        mv "$d/times.tsv.new" "$d/times.tsv"
        echo "$p: $(wc -l <"$d/times.tsv") schedules timed" >&2
    fi
    for w in "${weights[@]}"; do
        name=$(basename "$w" .sxw)
        [[ -s $d/preds-$name.txt ]] && continue
        wenv=()
        [[ $w != shipped ]] && wenv=(SEXTANT_WEIGHTS="$(realpath "$w")")
        mkdir -p "$d/rank-$name"
        schedule "$p" "$d/rank-$name" SEXTANT_COST_MODEL=learned SEXTANT_LEARNED_MARGIN=0 \
            SEXTANT_LEARNED_NEIGHBOURS="$neighbours" SEXTANT_DUMP_SCHEDULE="$d/rank-$name/pick.txt" \
            "${wenv[@]}" ||
            { echo "neighbourhood.sh: $p: ranking with $w failed" >&2; exit 1; }
        # "... candidate of K (predicted ms: SOURCE MS SOURCE MS ...)" -> "SOURCE<TAB>MS" lines
        grep -o 'predicted ms: [^)]*' "$d/rank-$name/gen.log" | head -1 |
            sed 's/^predicted ms: //' | tr ' ' '\n' | paste - - >"$d/preds-$name.txt"
    done
done
python3 "$ROOT/scripts/neighbourhood.py" "$out" --pipelines "$pipelines"
