#!/bin/bash
# regret_report.py's test-half ledger on an ensemble weights file: the ensemble is judged on the
# test half once; a second report is refused; a member changed (the ensemble file itself not) is
# another candidate, and so is the same file with another trust margin.
# Usage: regret_ledger_test.sh REGRET_REPORT_PY SOURCE_WEIGHTS_DIR WORKDIR
set -euo pipefail
report=$1 weights=$2 work=$3
rm -rf "$work" && mkdir -p "$work/w/members"
cp "$weights/sextant.sxw" "$work/w/"
cp "$weights"/members/*.sxw "$work/w/members/"
# judged MARGIN: one test-half line (an odd seed) judging $work/w/sextant.sxw.
judged() {
    echo "{\"seed\": 7, \"weights\": \"$work/w/sextant.sxw\", \"learned_candidates\": 4," \
        "\"learned_margin\": $1, \"learned_over_analytical\": 0.9, \"learned_regret\": 1.0," \
        "\"analytical_regret\": 1.1, \"schedules\": []}" >"$work/judge.jsonl"
}
run() { python3 "$report" "$work/judge.jsonl" --half test --ledger "$work/ledger.jsonl" --bootstrap 0; }
judged 0.05
run >/dev/null
if run >/dev/null 2>"$work/err"; then echo "FAIL: the same ensemble judged twice"; exit 1; fi
grep -q "already judged on the test half" "$work/err"
printf 'changed' >>"$work/w/members/s3.sxw"
run >/dev/null || { echo "FAIL: a changed member did not make a new candidate"; exit 1; }
judged 0.1
run >/dev/null || { echo "FAIL: another margin did not make a new candidate"; exit 1; }
[ "$(wc -l <"$work/ledger.jsonl")" -eq 3 ] || { echo "FAIL: ledger lines"; exit 1; }
echo "regret ledger test passed"
