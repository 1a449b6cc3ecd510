#!/usr/bin/env bash
# Builds sol and runs the whole test suite (host tests; GPU tests skip visibly without a GPU,
# and fail instead of skipping when SOL_REQUIRE_GPU=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
cd "$build"
# ctest counts the GPU suite as one test; say first what it does on this machine.
if [ -x ./sol_gpu_tests ]; then
  out=$(./sol_gpu_tests 2>&1 || true)
  skipped=$(grep -oE '^\[  SKIPPED \] [0-9]+ tests?' <<<"$out" | grep -oE '[0-9]+' || true)
  if [ -n "$skipped" ]; then
    why=$(grep -m1 -A1 ': Skipped$' <<<"$out" | tail -n 1 || true)
    echo "GPU suite: $skipped tests skipped: $why"
  else
    echo "GPU suite: $(grep -oE '^\[  PASSED  \] [0-9]+ tests?' <<<"$out" || echo "see sol_gpu_tests")"
  fi
fi
ctest --output-on-failure -j "$(nproc)" "$@"
# The host build again under ASan + UBSan, with the CLI fuzz smoke (SOL_SANITIZE=0 skips it; a
# compiler without the sanitizer runtimes says so and skips it).
if [ "${SOL_SANITIZE:-1}" != 0 ]; then "$root/scripts/sanitize.sh"; fi
