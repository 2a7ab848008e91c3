#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole test suite (ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build=${SX_BUILD_DIR:-$root/build}
cd "$build"
ctest --output-on-failure -j "${SX_JOBS:-$(nproc)}" "$@"
