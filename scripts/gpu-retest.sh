#!/usr/bin/env bash
# After a tuning change: the changed families' GPU tests, a memcheck of their small shapes, and
# their benchmarks with peers (mx at its headline shapes). Output under $OUT/retest.
source "$(dirname "$0")/gpu-env.sh"
T=$(outdir retest)
mkdir -p "$T/results"
echo "=== gpu tests"
SOL_REQUIRE_GPU=1 timeout 200 "$B/sol_gpu_tests" --gtest_filter='Registry/*mx__*:Registry/*softmax__*:Registry/*layernorm__*:Registry/*rmsnorm__*' > "$T/gpu_tests.log" 2>&1
echo "exit $?"; grep -E "^\[  (FAILED|PASSED) |tests ran|Failure|rel_l2|unwritten" "$T/gpu_tests.log" | head -30
echo "=== memcheck (odd mx shapes, softmax)"
SOL_REQUIRE_GPU=1 timeout 60 compute-sanitizer --tool memcheck --print-limit 10 "$B/sol_gpu_tests" --gtest_filter="Registry/*mx__v02*:Registry/*mx__v03*:Registry/*mx__v04*:Registry/*softmax__v02*:Registry/*softmax__v03*:-$big_shapes" > "$T/memcheck.log" 2>&1
echo "exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$T/memcheck.log" | head -5
for f in softmax layernorm rmsnorm; do
  echo "=== bench $f"; timeout 60 "$B/sol" bench "$f" --out-dir "$T/results" > "$T/bench-$f.log" 2>&1; echo "exit $?"
  grep -E "^v0|^peer" "$T/bench-$f.log" | head -24
done
echo "=== bench mx"; timeout 90 "$B/sol" bench mx --headline --out-dir "$T/results" > "$T/bench-mx.log" 2>&1; echo "exit $?"
grep -E "^v0|^peer" "$T/bench-mx.log"
tar czf "${OUT:-out/gpu}/retest.tgz" -C "${OUT:-out/gpu}" retest
