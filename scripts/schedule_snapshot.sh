#!/usr/bin/env bash
# What the plugin makes of every bench pipeline and of random pipelines 0-29, written under OUT
# so that a refactor can be checked to change nothing: `diff -r BEFORE AFTER` (docs/DESIGN.md).
# Each bench pipeline's ScheduleText (analytical model) and each random pipeline's ScheduleText
# and lowered statement. Beam 8, 2 passes and no time limit by default (a search cut by the
# clock depends on the machine's load); SNAPSHOT_BEAM / SNAPSHOT_PASSES change them.
#
#   scripts/schedule_snapshot.sh OUT [BUILD]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 1 ]] || { sed -n 2,8p "$0"; exit 2; }
out=$1 build=$(cd "${2:-$ROOT/build}" && pwd)
plugin=$build/plugin/libautoschedule_sextant.so
bench=$build/bench/sextant_bench_generators
random=$build/random_pipelines/random_pipeline.generator
target=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' "$build/CMakeCache.txt")
for x in "$plugin" "$bench" "$random"; do [[ -e $x ]] || { echo "schedule_snapshot.sh: missing $x" >&2; exit 2; }; done
search=(SEXTANT_COST_MODEL=analytical SEXTANT_TIME_LIMIT=0 HL_BEAM_SIZE="${SNAPSHOT_BEAM:-8}"
        HL_NUM_PASSES="${SNAPSHOT_PASSES:-2}")
args=(-p "$plugin" -s Sextant auto_schedule=true machine_params=2,16777216,40
      "target=$target-no_runtime")
mkdir -p "$out/bench" "$out/random"
text() { grep '^    //   ' "$1" | sed 's|^    //   ||'; } # the ScheduleText in a .schedule.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# GenGen lists its generators when asked for none.
for p in $("$bench" -o "$tmp" 2>&1 | sed -n 's/^    \([a-z0-9_]*\)$/\1/p'); do
    env "${search[@]}" "$bench" -g "$p" -f f -o "$tmp" -e schedule "${args[@]}" > "$tmp/log" 2>&1 ||
        { echo "schedule_snapshot.sh: $p failed:" >&2; tail -3 "$tmp/log" >&2; exit 1; }
    text "$tmp/f.schedule.h" > "$out/bench/$p.txt"
    echo "bench $p"
done
for seed in $(seq 0 29); do
    env "${search[@]}" "$random" -g random_pipeline -f f -o "$tmp" -e stmt,schedule "${args[@]}" \
        seed="$seed" > "$tmp/log" 2>&1 ||
        { echo "schedule_snapshot.sh: random pipeline $seed failed:" >&2; tail -3 "$tmp/log" >&2; exit 1; }
    text "$tmp/f.schedule.h" > "$out/random/$seed.txt"
    cp "$tmp/f.stmt" "$out/random/$seed.stmt"
    echo "random $seed"
done
