#!/usr/bin/env bash
# Runs a command beside a background sampler (scripts/sample.sh) without touching its labels:
# the command gets its own process group, listed in DB.pause, which the sampler stops (SIGSTOP)
# while it times a schedule and resumes afterwards, as it does its own compiles. The command
# slows down by the timings' share of the sampler's time; the timings see a quiet machine.
#
#   scripts/beside_sampler.sh --db DB CMD [ARGS...]
#
# If the sampler ends (or is killed) while the command is stopped, the command is resumed
# within a second. The command's exit status is this script's. Use it for CPU work that needs
# no quiet machine itself (training, tests, builds of another tree); never for timing.
set -euo pipefail
[[ $# -ge 3 && $1 == --db ]] || { sed -n 2,11p "$0" >&2; exit 2; }
DB=$2
shift 2
PAUSE=$DB.pause PIDFILE=$DB.pid
# setsid: the command leads a new process group (its pgid is its pid), so SIGSTOP to the group
# reaches every thread and child of it and nothing of ours.
setsid "$@" &
pgid=$!
lock=$PAUSE.lock
add() { (flock 9; echo "$pgid" >> "$PAUSE") 9> "$lock"; }
remove() {
    (flock 9; [[ -f $PAUSE ]] && { grep -vx "$pgid" "$PAUSE" > "$PAUSE.tmp" || true; mv "$PAUSE.tmp" "$PAUSE"; }) 9> "$lock"
}
add
trap 'remove; kill -CONT -- -"$pgid" 2>/dev/null || true' EXIT
trap 'kill -TERM -- -"$pgid" 2>/dev/null; kill -CONT -- -"$pgid" 2>/dev/null' INT TERM
# While the command runs: if no sampler is alive, nothing may stay stopped.
# (ps, not kill -0: a finished command stays a zombie until waited for.)
alive() { local st; st=$(ps -o stat= -p "$pgid" 2>/dev/null) && [[ $st != Z* ]]; }
while alive; do
    if ! { [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }; then
        kill -CONT -- -"$pgid" 2>/dev/null || true
    fi
    sleep 1
done
status=0
wait "$pgid" || status=$?
exit $status
