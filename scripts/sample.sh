#!/usr/bin/env bash
# Long-running, resumable background sampling into a SampleStore (see docs/SAMPLING.md).
#
#   scripts/sample.sh --from 0 --to 1000 --per-pipeline 20 --db data/samples.db
#   scripts/sample.sh --status --db data/samples.db      # progress of a running/finished run
#   scripts/sample.sh --stop --db data/samples.db        # stop it (rerun the first command to resume)
#
# Options of its own: --build DIR (default: $SEXTANT_BUILD or build), --nice N (default 10),
# --foreground (do not detach). Everything else goes to sextant-sample. The run detaches
# (nohup), logs to DB.log and writes its pid to DB.pid. Stopping or killing it at any moment
# loses at most the sample in flight; running the same command again resumes. Process groups
# listed in DB.pause are stopped while a schedule is timed: run other work beside the sampler
# with scripts/beside_sampler.sh --db DB CMD..., and the labels stay as if the machine were
# quiet (docs/SAMPLING.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SEXTANT_BUILD:-$ROOT/build}
NICE=10
FOREGROUND=0
MODE=run
DB=
ARGS=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --build) BUILD=$2; shift 2 ;;
        --nice) NICE=$2; shift 2 ;;
        --foreground) FOREGROUND=1; shift ;;
        --status) MODE=status; shift ;;
        --stop) MODE=stop; shift ;;
        --db) DB=$2; ARGS+=("$1" "$2"); shift 2 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
[[ -n $DB ]] || { echo "sample.sh: --db is required" >&2; exit 2; }
[[ " ${ARGS[*]} " == *" --pause-beside-timing "* ]] || ARGS+=(--pause-beside-timing "$DB.pause")
mkdir -p "$(dirname "$DB")"
LOG=$DB.log
PIDFILE=$DB.pid

running() { [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

case $MODE in
status)
    if running; then echo "running (pid $(cat "$PIDFILE")), log $LOG"; else echo "not running, log $LOG"; fi
    [[ -f $LOG ]] && grep -E '^\[' "$LOG" | tail -n 3
    if command -v sqlite3 > /dev/null && [[ -f $DB ]]; then
        sqlite3 "$DB" "SELECT COUNT(*) || ' workloads' FROM workloads;
                       SELECT COUNT(*) || ' records, ' || SUM(error IS NOT NULL) || ' failed' FROM records;
                       SELECT COUNT(*) || ' records in the last hour' FROM records
                         WHERE created > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 hour');"
    fi
    exit 0 ;;
stop)
    if running; then kill "$(cat "$PIDFILE")" && echo "stopped pid $(cat "$PIDFILE")"; else echo "not running"; fi
    exit 0 ;;
esac

if running; then
    echo "sample.sh: a run on $DB is already going (pid $(cat "$PIDFILE")); --stop it first" >&2
    exit 1
fi
EXE=$BUILD/sampler/sextant-sample
if [[ ! -x $EXE ]]; then
    echo "building sextant-sample in $BUILD" >&2
    [[ -f $BUILD/build.ninja || -f $BUILD/Makefile ]] || cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$BUILD" --target sextant-sample -j"$(nproc)"
fi
if [[ $FOREGROUND == 1 ]]; then
    exec nice -n "$NICE" "$EXE" "${ARGS[@]}"
fi
echo "=== $(date -u +%FT%TZ) sample.sh ${ARGS[*]}" >> "$LOG"
nohup nice -n "$NICE" "$EXE" "${ARGS[@]}" >> "$LOG" 2>&1 < /dev/null &
echo $! > "$PIDFILE"
echo "sampling in the background: pid $!, log $LOG"
echo "progress: $0 --status --db $DB"
