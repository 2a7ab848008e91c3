#!/usr/bin/env bash
# scripts/beside_sampler.sh: the command is listed in DB.pause while it runs and removed after,
# a command left stopped is resumed once the sampler is gone, and the exit status is the
# command's. (The sampler's side, PauseListed, is tested in test_sampler.cpp.)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'kill "${sampler:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sleep 60 &
sampler=$!
echo "$sampler" > "$work/db.pid"
"$ROOT/scripts/beside_sampler.sh" --db "$work/db" \
    bash -c "for i in \$(seq 8); do echo tick >> $work/ticks; sleep 0.25; done; exit 3" &
beside=$!
for _ in $(seq 50); do [[ -s $work/db.pause ]] && break; sleep 0.1; done
group=$(cat "$work/db.pause")
[[ -n $group ]] || fail "nothing listed in db.pause"
kill -STOP -- "-$group" # as the sampler does around a timing
sleep 1.5
[[ $(ps -o stat= -p "$group") == T* ]] || fail "the group was not stopped while the sampler lives"
kill "$sampler"
sleep 2
[[ $(ps -o stat= -p "$group" 2>/dev/null || echo gone) != T* ]] || fail "still stopped after the sampler ended"
status=0
wait "$beside" || status=$?
[[ $status == 3 ]] || fail "exit status $status, expected the command's 3"
[[ ! -s $work/db.pause ]] || fail "db.pause still lists $(cat "$work/db.pause")"
[[ $(wc -l < "$work/ticks") == 8 ]] || fail "the command did not finish its work"
echo "beside_sampler test passed"
