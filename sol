#!/usr/bin/env bash
# sol's front door: builds what the command needs on first use (installing missing Debian
# packages), then runs the CLI. Without a GPU: the host-only CLI in build-host (no CUDA, no
# tests), at -O1: a file compiles in a quarter to a half less time than at -O3, and the CLI's
# commands run as fast (README, "What gets built"). With one: the CLI and its kernels in build-cuda (no tests).
# $SOL_BUILD_DIR picks the build directory and $SOL_CMAKE_ARGS adds to (and overrides) these
# choices; scripts/check.sh builds everything, tests included, in a directory of its own.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
# A GPU is here when the driver lists one (or, without nvidia-smi, its device node exists).
has_gpu() {
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -q '^GPU '
  else
    [ -c /dev/nvidia0 ]
  fi
}
if has_gpu; then
  build=${SOL_BUILD_DIR:-$root/build-cuda}
  config=(-DSOL_BUILD_TESTS=OFF)
else
  build=${SOL_BUILD_DIR:-$root/build-host}
  config=(-DSOL_ENABLE_CUDA=OFF -DSOL_BUILD_TESTS=OFF "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG")
fi
if [ ! -x "$build/sol" ] || [ -n "$(find "$root/src" "$root/include" "$root/cli" "$root/kernels" "$root/bench" "$root/CMakeLists.txt" -newer "$build/sol" -print -quit 2>/dev/null)" ]; then
  SOL_BUILD_DIR=$build "$root/scripts/build.sh" "${config[@]}" sol
fi
exec "$build/sol" "$@"
