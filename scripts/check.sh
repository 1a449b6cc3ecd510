#!/usr/bin/env bash
# Builds sol and runs the whole test suite (host tests; GPU tests skip visibly without a GPU,
# and fail instead of skipping when SOL_REQUIRE_GPU=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
