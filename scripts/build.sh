#!/usr/bin/env bash
# Configures (once) and builds sol into build/ (or $SOL_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
# A compiler cache, where one is installed, makes rebuilds and other checkouts cheap.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$root")}
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" ${SOL_CMAKE_ARGS:-} >&2
fi
cmake --build "$build" -j "$(nproc)" >&2
