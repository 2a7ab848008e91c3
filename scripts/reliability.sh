#!/usr/bin/env bash
# Reliability: N random pipelines x 3 dropout seeds, each schedule compiled, run and compared
# with Halide's default schedule; prints counts of correct / failed with reasons.
# Usage: scripts/reliability.sh [N=500] [first seed=0] [beam=8]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SX_BUILD_DIR:-$root/build}
n=${1:-500}
from=${2:-0}
beam=${3:-8}
"$root/scripts/setup.sh" --target sextant-fuzz >/dev/null
"$build/tools/sextant-fuzz" --from "$from" --to "$((from + n))" --seeds 3 --beam "$beam" --passes 2 --jobs "$(nproc)"
