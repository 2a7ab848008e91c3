#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole test suite (ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build=${SX_BUILD_DIR:-$root/build}

# Every C++ source is formatted as clang-format (Debian 12's, version 14) writes it with the
# project's .clang-format; `git clang-format` or `clang-format -i FILE` fixes a file.
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z '*.cpp' '*.h' > "$build/cxx-files"
else
    find . -path ./build -prune -o -path ./build-bench -prune -o \( -name '*.cpp' -o -name '*.h' \) \
        -print0 > "$build/cxx-files"
fi
if ! xargs -0 clang-format --dry-run -Werror < "$build/cxx-files" 2> "$build/format.log"; then
    echo "clang-format: these files are not formatted (clang-format -i FILE fixes them):" >&2
    grep -o '^[^:]*\.\(cpp\|h\)' "$build/format.log" | sort -u >&2
    exit 1
fi

# A one-node Slurm cluster for the cluster test (installed and started here, stopped when the
# tests end; SX_SLURM=0 skips it, and the test then reports itself skipped).
if [ "${SX_SLURM:-1}" = 1 ]; then
    "$root/scripts/slurm_local.sh" start
    trap '"$root/scripts/slurm_local.sh" stop >/dev/null' EXIT
    export SLURM_CONF=${SX_SLURM_DIR:-/tmp/sextant-slurm}/slurm.conf
fi

cd "$build"
# Tests run side by side: timings must not wait for the machine to be as fast as it was.
export SX_SPEED_CHECK=0
ctest --output-on-failure -j "${SX_JOBS:-$(nproc)}" "$@"
