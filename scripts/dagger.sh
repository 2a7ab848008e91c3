#!/usr/bin/env bash
# On-policy training rounds for the learned cost model (DAgger; docs/COSTMODEL.md): each round
# samples new random pipelines with the analytical model (the anchors), then with the current
# weights' own search (its picks and the runner-up states of its final beams, beam 32 and 8),
# exports everything measured so far, retrains, and judges the new weights by search regret
# against the held-out regret set. The next round searches with the new weights.
#
#   scripts/dagger.sh --db build/dagger/samples.db --out build/dagger --from 6000 \
#       --seeds-per-round 100 --rounds 3 [--weights weights/sextant.sxw] \
#       [--regret-db build/regret/best.db --regret-seeds 5000:5100] [--corpus FILE.jsonl]...
#
# Options: --anchors K (analytical schedules per pipeline, 5), --on-policy K (learned ones on
# top, 5), --final-beam K (2), --corpus FILE (earlier training samples, JSON lines from
# `sextant-sample --export-training`, added to every round's training; repeatable),
# --build DIR. Every step is resumable: rerunning the command skips what a round already
# measured, trained or judged (the store keeps every measurement; training restarts from its
# checkpoint). Progress goes to stderr; each round's weights and report land in OUT/round-N/.
# Never let --from..(--from + rounds x seeds-per-round) overlap the regret seeds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
DB= OUT= FROM= PER_ROUND=100 ROUNDS=3 WEIGHTS=$ROOT/weights/sextant.sxw
ANCHORS=5 ON_POLICY=5 FINAL_BEAM=2 REGRET_DB= REGRET_SEEDS=
CORPUS=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --db) DB=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --from) FROM=$2; shift 2 ;;
        --seeds-per-round) PER_ROUND=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --weights) WEIGHTS=$2; shift 2 ;;
        --anchors) ANCHORS=$2; shift 2 ;;
        --on-policy) ON_POLICY=$2; shift 2 ;;
        --final-beam) FINAL_BEAM=$2; shift 2 ;;
        --regret-db) REGRET_DB=$2; shift 2 ;;
        --regret-seeds) REGRET_SEEDS=$2; shift 2 ;;
        --corpus) CORPUS+=(--data "$2"); shift 2 ;;
        --build) BUILD=$2; shift 2 ;;
        -h|--help) sed -n 2,18p "$0"; exit 0 ;;
        *) echo "dagger.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -n $DB && -n $OUT && $FROM =~ ^[0-9]+$ ]] || {
    echo "dagger.sh: --db, --out and --from are required (see --help)" >&2; exit 2; }
if [[ -n $REGRET_SEEDS ]]; then
    r0=${REGRET_SEEDS%:*} r1=${REGRET_SEEDS#*:}
    end=$((FROM + ROUNDS * PER_ROUND))
    if (( FROM < r1 && r0 < end )); then
        echo "dagger.sh: training seeds $FROM..$end overlap the regret seeds $REGRET_SEEDS" >&2; exit 2
    fi
fi
SAMPLE=$BUILD/sampler/sextant-sample
TRAIN=$BUILD/costmodel/sextant-train
for exe in "$SAMPLE" "$TRAIN"; do
    [[ -x $exe ]] || cmake --build "$BUILD" --target "$(basename "$exe")" -j"$(nproc)"
done
mkdir -p "$OUT" "$(dirname "$DB")"
say() { echo "== dagger $(date +%H:%M:%S): $*" >&2; }

for ((r = 1; r <= ROUNDS; r++)); do
    a=$((FROM + (r - 1) * PER_ROUND)) b=$((FROM + r * PER_ROUND)) dir=$OUT/round-$r
    mkdir -p "$dir"
    say "round $r/$ROUNDS: seeds $a..$b, searching with $WEIGHTS"
    say "anchors: $ANCHORS analytical schedules per pipeline"
    "$SAMPLE" --db "$DB" --from "$a" --to "$b" --per-pipeline "$ANCHORS"
    say "on-policy: up to $ON_POLICY more from the learned search (final beams: $FINAL_BEAM)"
    "$SAMPLE" --db "$DB" --from "$a" --to "$b" --per-pipeline $((ANCHORS + ON_POLICY)) \
        --weights "$WEIGHTS" --final-beam "$FINAL_BEAM"
    "$SAMPLE" --db "$DB" --export-training "$dir/train.jsonl"
    if [[ ! -f $dir/weights.sxw ]]; then
        say "training on everything measured so far"
        resume=()
        [[ -f $dir/checkpoint/trainer.json ]] && resume=(--resume)
        "$TRAIN" --data "$dir/train.jsonl" "${CORPUS[@]}" --out "$dir" "${resume[@]}" \
            --pipelines-per-step 4 --lr 5e-3 --epochs 25 --weight-pairs-by-gap \
            --multiplier-range 2 --parallelism "$(nproc)" --llc-bytes 33554432 --no-plot
    fi
    regret=()
    if [[ -n $REGRET_DB ]]; then
        say "search regret on seeds $REGRET_SEEDS"
        "$SAMPLE" --db "$REGRET_DB" --regret "$dir/weights.sxw" --regret-out "$dir/regret.jsonl" \
            --from "${REGRET_SEEDS%:*}" --to "${REGRET_SEEDS#*:}"
        regret=(--regret "$dir/regret.jsonl")
    fi
    python3 "$ROOT/scripts/weights_report.py" "$dir/report.json" "${regret[@]}" > "$dir/REPORT.md"
    say "round $r done: $dir/REPORT.md"
    WEIGHTS=$dir/weights.sxw
done
