#!/usr/bin/env bash
# Reliability: N random pipelines x 3 dropout seeds, each schedule compiled, run and compared
# with Halide's default schedule; prints counts of correct / failed with reasons.
# Then every bench pipeline through bench.sh's reference check (SX_RELIABILITY_BENCH=0 skips it).
# Usage: scripts/reliability.sh [N=500] [first seed=0] [beam=8]
#
#        scripts/reliability.sh --user [N=700] [first seed=50000]
#   The settings users run, N pipelines each (so 3N x 3 schedules): the default search (beam 32,
#   5 passes) with the analytical model and with the learned one (3 dropout seeds: 100%, 50%,
#   50%), and the candidate searches autotuning proposes (the beam pick, a greedy and dropout
#   searches at beam 4; 3 per pipeline). Every schedule is compiled, run and compared with
#   Halide's default schedule, and its assembly scanned for aligned vector moves to misaligned
#   stack slots (--asm-check). One line per pipeline goes to build/reliability-user/MODE.log as
#   it finishes, so a stopped run keeps its counts; the totals are printed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
if [ "${1:-}" = "--user" ]; then
    n=${2:-700}
    from=${3:-50000}
    "$root/scripts/setup.sh" --target sextant-fuzz >/dev/null
    out=$build/reliability-user
    mkdir -p "$out"
    fuzz=("$build/tools/sextant-fuzz" --beam 32 --passes 5 --asm-check --jobs "$(nproc)" --quiet)
    status=0
    "${fuzz[@]}" --from "$from" --to "$((from + n))" --seeds 3 --cost-model analytical \
        --log "$out/analytical.log" || status=1
    "${fuzz[@]}" --from "$((from + n))" --to "$((from + 2 * n))" --seeds 3 --cost-model learned \
        --log "$out/learned.log" || status=1
    "${fuzz[@]}" --from "$((from + 2 * n))" --to "$((from + 3 * n))" --targeted any 3 \
        --log "$out/candidates.log" || status=1
    for mode in analytical learned candidates; do
        awk -v m="$mode" '{c += $4; f += $6} END {printf "%s: %d schedules correct, %d failed\n", m, c, f}' \
            "$out/$mode.log"
    done
    exit "$status"
fi
n=${1:-500}
from=${2:-0}
beam=${3:-8}
"$root/scripts/setup.sh" --target sextant-fuzz >/dev/null
# The bench pipelines are checked even when some random pipeline failed; the exit status says
# whether either part failed.
fuzz_status=0
"$build/tools/sextant-fuzz" --from "$from" --to "$((from + n))" --seeds 3 --beam "$beam" --passes 2 --jobs "$(nproc)" || fuzz_status=$?

# Plus every bench pipeline: Sextant's schedule compiled, run and checked against the
# everything-at-root reference (bench.sh's correctness check; one timing repetition).
if [ "${SX_RELIABILITY_BENCH:-1}" = 1 ]; then
    out=$build/reliability-bench
    "$root/scripts/bench.sh" --schedulers sextant-analytical --reps 1 --no-time-reference \
        --beam "$beam" --out "$out" > "$out.log" 2>&1 || true
    python3 - "$out/results.json" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))["rows"]
except (OSError, ValueError, KeyError) as e:
    sys.exit(f"bench pipelines: no results ({e}); see {sys.argv[1]}")
rows = [r for r in rows if r["scheduler"] == "sextant-analytical"]
bad = [r for r in rows if r["status"] != "ok"]
print(f"bench pipelines: {len(rows) - len(bad)} of {len(rows)} Sextant schedules compiled, ran "
      f"and matched the reference; {len(bad)} failed")
for r in bad:
    print(f"  FAILED {r['pipeline']}: {r['reason']}")
sys.exit(1 if bad else 0)
PY
fi
exit "$fuzz_status"
