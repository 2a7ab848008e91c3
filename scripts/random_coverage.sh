#!/usr/bin/env bash
# Prints the stage-kind coverage table of the random pipeline generator over a seed range
# (plans only; nothing is compiled). Usage: scripts/random_coverage.sh [FROM TO] [tool options]
#   FROM, TO   seeds [FROM, TO); default 0 1000
#   BUILD_DIR  build directory holding the tool (default: the newer of build/ and build-random/)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
from="${1:-0}"
to="${2:-1000}"
shift $(( $# >= 2 ? 2 : $# )) || true
tool=""
if [[ -n "${BUILD_DIR:-}" ]]; then
    tool="$BUILD_DIR/random_pipelines/sextant-random-pipeline"
else
    # The most recently built of build/ and build-random/.
    for dir in "$root/build" "$root/build-random"; do
        cand="$dir/random_pipelines/sextant-random-pipeline"
        if [[ -x "$cand" && ( -z "$tool" || "$cand" -nt "$tool" ) ]]; then
            tool="$cand"
        fi
    done
fi
if [[ -z "$tool" || ! -x "$tool" ]]; then
    echo "error: sextant-random-pipeline not built; run: cmake --build build --target sextant-random-pipeline" >&2
    exit 1
fi
exec "$tool" --coverage "$from" "$to" "$@"
