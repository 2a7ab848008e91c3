#!/bin/bash
# bench_ratio.py on a hand-made bench.sh directory: the ratio per pipeline, pipelines whose two
# .schedule.h files differ only in the scheduler's name and comments marked `same`, and the
# geomean with those counted as 1.
# Usage: bench_ratio_test.sh BENCH_RATIO_PY WORKDIR
set -euo pipefail
py=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
row() { printf '{"pipeline":"%s","scheduler":"%s","status":"ok","min_ms":%s}' "$1" "$2" "$3"; }
printf '{"rows":[%s,%s,%s,%s]}\n' "$(row p s-a 11)" "$(row p s-b 10)" "$(row q s-a 8)" \
    "$(row q s-b 10)" >"$work/results.json"
# p: the same schedule under two names, with other predictions in the comment; q: another.
header() {
    printf '// predicted %s ms\ninline void apply_schedule_%s_%s() {\n' "$3" "$1" "$2"
}
for s in s_a s_b; do
    mkdir -p "$work/p/${s/_/-}" "$work/q/${s/_/-}"
    { header p "$s" "1.$RANDOM"; printf '    f.compute_root();\n}\n'; } >"$work/p/${s/_/-}/p_$s.schedule.h"
done
{ header q s_a 1; printf '    f.compute_root();\n}\n'; } >"$work/q/s-a/q_s_a.schedule.h"
{ header q s_b 1; printf '    f.compute_inline();\n}\n'; } >"$work/q/s-b/q_s_b.schedule.h"
out=$(python3 "$py" "$work" s-a s-b)
echo "$out"
echo "$out" | grep '^p ' | grep -q '1.10  same$' || { echo "FAIL: p not marked same"; exit 1; }
echo "$out" | grep '^q ' | grep -q '0.80$' || { echo "FAIL: q's ratio, or marked same"; exit 1; }
# sqrt(1.1 x 0.8) = 0.938 raw; sqrt(1 x 0.8) = 0.894 with p counted as 1.
echo "$out" | grep -q 'over 2 pipelines: 0.938$' || { echo "FAIL: raw geomean"; exit 1; }
echo "$out" | grep -q 'same schedules on 1 of 2; geomean with those counted as 1: 0.894$' ||
    { echo "FAIL: geomean with the same counted as 1"; exit 1; }
echo "bench ratio test passed"
