#!/usr/bin/env bash
# Last GPU call of a session: mx headline bench with peers, and the sanitizers on the new kernel
# families' small shapes. Output under $OUT/last.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
B=${SOL_BUILD_DIR:-build-cuda}
L=${OUT:-out/gpu}/last
mkdir -p "$L"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} SOL_SOURCE_DIR=$root SOL_PROFILE=$L/measured.json PYTHONUNBUFFERED=1
big='*65536*:*16384*:*65537*:*2147483659*:*32768*:*16383*:*8192*:*4096*:*1000003*:*2048*'
echo "=== bench mx (headline)"
timeout 200 "$B/sol" bench mx --headline --out-dir "$L" > "$L/bench-mx.log" 2>&1; echo "exit $?"
grep -v "^sol: " "$L/bench-mx.log" | head -30
echo "=== memcheck"
SOL_REQUIRE_GPU=1 timeout 150 compute-sanitizer --tool memcheck --print-limit 10 "$B/sol_gpu_tests" \
  --gtest_filter="Registry/*softmax__v03*:Registry/*layernorm__v03*:Registry/*rmsnorm__v03*:Registry/*elementwise__v02*:Registry/*mx__v0[2-5]*:-$big" > "$L/memcheck.log" 2>&1
echo "exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|tests ran" "$L/memcheck.log" | head
echo "=== racecheck"
SOL_REQUIRE_GPU=1 timeout 120 compute-sanitizer --tool racecheck "$B/sol_gpu_tests" \
  --gtest_filter="Registry/*softmax__v0[23]*:Registry/*layernorm__v0[23]*:Registry/*mx__v0[34]*:-$big" > "$L/racecheck.log" 2>&1
echo "exit $?"; grep -E "RACECHECK SUMMARY|PASSED|FAILED|hazard|tests ran" "$L/racecheck.log" | head
