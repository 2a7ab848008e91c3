#!/bin/bash
# bench_report.py's two best-known columns on a hand-made results directory: the best known of
# the others leaves Sextant's own schedules out (so a ratio can be below 1), the run's fastest
# counts them, and failed or untimed rows count in neither.
# Usage: bench_report_test.sh REPORT_PY WORKDIR
set -euo pipefail
report=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
# cell PIPELINE SCHEDULER STATUS [MS]: one scheduler's directory and, if timed, its timing line.
cell() {
    local d="$work/$1/$2"
    mkdir -p "$d"
    echo "$3" >"$d/status"
    echo "${1}_$2" >"$d/function"
    if [ $# -ge 4 ]; then
        echo "{\"pipeline\": \"lib:${1}_$2\", \"min_ms\": $4}" >>"$work/$1/timing.jsonl"
    fi
}
cell blur sextant-analytical ok 2.0
cell blur sextant-learned ok 1.0
cell blur adams2019 ok 4.0
cell blur expert ok 3.0
cell blur mullapudi2016 fail
cell pyr sextant-analytical ok 6.0
cell pyr sextant-learned ok 6.0
cell pyr expert ok 5.0
cell pyr reference ok 1.0
python3 "$report" "$work" --quiet
python3 - "$work/results.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
rows = {(r["pipeline"], r["scheduler"]): r for r in d["rows"]}
def near(a, b):
    assert abs(a - b) < 1e-9, (a, b)
a = rows[("blur", "sextant-analytical")]
near(a["vs_best_other"], 2.0 / 3.0)   # expert 3.0: Adams2019 slower, Mullapudi2016 failed
assert a["best_other_by"] == "expert"
near(a["vs_best_known"], 2.0)         # the learned column's 1.0 counts in the run's fastest
near(rows[("pyr", "sextant-learned")]["vs_best_other"], 1.2) # the reference never counts
g = d["geomean_vs_best_other"]["sextant-analytical"]
near(g["geomean"], math.sqrt(2.0 / 3.0 * 1.2))
near(g["max"], 1.2)
near(d["geomean_vs_best_known"]["sextant-analytical"]["geomean"], math.sqrt(2.0 * 1.2))
md = open(sys.argv[1].replace("results.json", "results.md")).read()
assert "best known schedule of the others" in md and "run's fastest" in md, md
print("bench report test passed")
PY
