#!/usr/bin/env bash
# Installs Sextant's Debian 12 dependencies (only what is missing) and builds into build/.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
packages=(build-essential cmake ninja-build ccache libhalide14-0-dev libtorch-dev
          nlohmann-json3-dev catch2 libsqlite3-dev python3 python3-matplotlib bc
          clang-format procps) # procps: ps, for scripts/beside_sampler.sh
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
build=${SX_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
jobs=${SX_JOBS:-$(nproc)}
cmake --build "$build" -j "$jobs" "$@"
