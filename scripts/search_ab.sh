#!/usr/bin/env bash
# Two builds of the plugin, side by side on every bench pipeline: each pipeline's full default
# search (analytical model, no time limit) with plugin A then plugin B, back to back, printing
# both search times and predicted costs and whether the two ScheduleTexts are identical. For a
# change that must keep the picks and make the search faster (docs/SEARCH.md). Exit 1 if any
# pick differs.
#
#   scripts/search_ab.sh PLUGIN_A.so PLUGIN_B.so [PIPELINE ...]   (default: every bench
#   pipeline but synthetic_200; BUILD=dir picks the bench generator's build, default build/)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 2 ]] || { sed -n 2,9p "$0"; exit 2; }
a=$(realpath "$1") b=$(realpath "$2")
shift 2
build=$(cd "${BUILD:-$ROOT/build}" && pwd)
gen=$build/bench/sextant_bench_generators
target=$(sed -n 's/^SEXTANT_HOST_TARGET:STRING=//p' "$build/CMakeCache.txt")
for x in "$a" "$b" "$gen"; do [[ -e $x ]] || { echo "search_ab.sh: missing $x" >&2; exit 2; }; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pipelines=("$@")
if [[ ${#pipelines[@]} -eq 0 ]]; then
    # GenGen lists its generators when asked for none.
    mapfile -t pipelines < <("$gen" -o "$tmp" 2>&1 | sed -n 's/^    \([a-z0-9_]*\)$/\1/p' |
                             grep -v '^synthetic_200$')
fi
differ=0
printf '%-30s %10s %10s %12s %12s  %s\n' pipeline A_s B_s A_ms B_ms picks
for p in "${pipelines[@]}"; do
    declare -A secs=() ms=()
    for side in A B; do
        plugin=$a
        [[ $side == B ]] && plugin=$b
        mkdir -p "$tmp/$side"
        log=$(SEXTANT_TIME_LIMIT=0 SEXTANT_DEBUG=1 SEXTANT_COST_MODEL=analytical \
              "$gen" -g "$p" -f f -o "$tmp/$side" -e schedule -p "$plugin" -s Sextant \
              auto_schedule=true machine_params=2,16777216,40 "target=$target-no_runtime" 2>&1) ||
            { echo "search_ab.sh: $p failed with $plugin:" >&2; echo "$log" | tail -3 >&2; exit 1; }
        line=$(echo "$log" | grep 'Sextant: scheduled' | tail -1)
        secs[$side]=$(echo "$line" | sed 's/.*Funcs in \([0-9.]*\) s.*/\1/')
        ms[$side]=$(echo "$line" | sed 's/.*predicted \([0-9.e+-]*\) ms.*/\1/')
        grep '^    //   ' "$tmp/$side/f.schedule.h" > "$tmp/$side/$p.txt"
    done
    same=identical
    cmp -s "$tmp/A/$p.txt" "$tmp/B/$p.txt" || { same=DIFFERENT; differ=1; }
    printf '%-30s %10.2f %10.2f %12s %12s  %s\n' "$p" "${secs[A]}" "${secs[B]}" "${ms[A]}" \
        "${ms[B]}" "$same"
done
exit $differ
