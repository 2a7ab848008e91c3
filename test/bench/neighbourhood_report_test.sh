#!/bin/bash
# neighbourhood.py on a hand-made directory: the oracle is the fastest candidate over the pick,
# a model's choice is its cheapest candidate unless the margin keeps the pick, "pairs" counts
# neighbours ordered right against the pick, a model preferring an untimed candidate is marked,
# and ranking logs of other candidates are refused.
# Usage: neighbourhood_report_test.sh NEIGHBOURHOOD_PY WORKDIR
set -euo pipefail
py=$1 work=$2
rm -rf "$work" && mkdir -p "$work/p"
# Candidates 0 (the pick), 1 and 2; measured 10, 8 and 12 ms.
printf '{"index":0,"source":"beam","schedule_text":"func a root\\n"}\n' >"$work/p/candidates.jsonl"
printf '{"index":1,"source":"near-tweak:0:a","schedule_text":"func a root\\n"}\n' >>"$work/p/candidates.jsonl"
printf '{"index":2,"source":"near-mutate:0:a","schedule_text":"func a inline\\n"}\n' >>"$work/p/candidates.jsonl"
printf '00\t10.0\t10.5\n01\t8.0\t8.1\n02\t12.0\t12.2\n' >"$work/p/times.tsv"
# Model m prices candidate 2 cheapest, 3% under the pick (wrong), candidate 1 2% under.
printf 'beam\t1.00\nnear-tweak:0:a\t0.98\nnear-mutate:0:a\t0.97\ngreedy\t2.0\n' >"$work/p/preds-m.txt"
out=$(python3 "$py" "$work")
echo "$out"
row=$(echo "$out" | grep '^p ')
# oracle 8/10; margin 0 and 2%: candidate 2 (1.2); 5%: the pick; pairs: 1 of 2 right.
echo "$row" | grep -q ' 0.800 ' || { echo "FAIL: oracle"; exit 1; }
[[ $(echo "$row" | grep -o '#2  1.200' | wc -l) == 2 ]] || { echo "FAIL: choice at 0/2%"; exit 1; }
echo "$row" | grep -q '#0  1.000' || { echo "FAIL: the margin keeps the pick at 5%"; exit 1; }
echo "$row" | grep -q '1/2' || { echo "FAIL: pairs"; exit 1; }
# A model pricing a candidate the learned mode ranks besides the stored ones (greedy, never
# timed) under all of them: its row is marked, its choice among the timed ones still shown.
printf 'beam\t1.00\nnear-tweak:0:a\t0.98\nnear-mutate:0:a\t0.97\ngreedy\t0.5\n' >"$work/p/preds-m.txt"
out=$(python3 "$py" "$work")
echo "$out"
echo "$out" | grep '^p ' | grep -q '1/2 *[*]' || { echo "FAIL: untimed choice not marked"; exit 1; }
[[ $(echo "$out" | grep '^p ' | grep -o '#2  1.200' | wc -l) == 2 ]] || { echo "FAIL: choice among the timed"; exit 1; }
echo "$out" | grep -q '^(\*: on 1 row' || { echo "FAIL: footnote"; exit 1; }
# A ranking log whose candidates are not the stored ones is refused.
printf 'beam\t1.00\ndropout:20:1\t0.98\nnear-mutate:0:a\t0.97\n' >"$work/p/preds-m.txt"
if python3 "$py" "$work" >/dev/null 2>&1; then echo "FAIL: other candidates accepted"; exit 1; fi
echo "neighbourhood report test passed"
