#!/usr/bin/env bash
# One GPU call for a set of families, each with its own bench arguments: optional GPU tests
# (GPU_TEST_FILTER, SOL_REQUIRE_GPU=1), then `sol bench` per family with peers into
# $OUT/set/results/<family>.json, then optional memcheck (MEMCHECK_FILTER). Arguments are
# FAMILY[:ARGS] with ARGS comma-separated, e.g. gemm_fp16:--headline attention.
# BENCH_TIMEOUT (per family, default 150 s) bounds each bench; results are packed as set.tgz.
source "$(dirname "$0")/gpu-env.sh"
S=$(outdir set)
mkdir -p "$S/results"
t0=$(date +%s)
say() { echo "=== $1 ($(( $(date +%s) - t0 )) s)"; }
if [ -n "${GPU_TEST_FILTER:-}" ]; then
  say "gpu tests ($GPU_TEST_FILTER)"
  SOL_REQUIRE_GPU=1 timeout "${TEST_TIMEOUT:-200}" "$B/sol_gpu_tests" --gtest_filter="$GPU_TEST_FILTER" > "$S/gpu_tests.log" 2>&1
  echo "exit $?"; grep -E "^\[  (FAILED|PASSED) |tests ran" "$S/gpu_tests.log" | tail -12
fi
for spec in "$@"; do
  fam=${spec%%:*}; args=""; [ "$spec" != "$fam" ] && args=${spec#*:}
  say "bench $fam ${args//,/ }"
  timeout "${BENCH_TIMEOUT:-150}" "$B/sol" bench "$fam" ${args//,/ } --out-dir "$S/results" ${BENCH_ARGS:-} > "$S/bench-$fam.log" 2>&1
  echo "exit $?"; grep -E "^(v[0-9]|peer)" "$S/bench-$fam.log" | awk '{print $1, $2, $3, $6}' | head -${BENCH_LINES:-30}
done
if [ -n "${MEMCHECK_FILTER:-}" ]; then
  say "memcheck ($MEMCHECK_FILTER)"
  SOL_REQUIRE_GPU=1 timeout "${MEMCHECK_TIMEOUT:-200}" compute-sanitizer --tool memcheck --print-limit 10 "$B/sol_gpu_tests" --gtest_filter="$MEMCHECK_FILTER" > "$S/memcheck.log" 2>&1
  echo "exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$S/memcheck.log" | tail -4
fi
if [ -n "${RACECHECK_FILTER:-}" ]; then
  say "racecheck ($RACECHECK_FILTER)"
  SOL_REQUIRE_GPU=1 timeout "${RACECHECK_TIMEOUT:-150}" compute-sanitizer --tool racecheck "$B/sol_gpu_tests" --gtest_filter="$RACECHECK_FILTER" > "$S/racecheck.log" 2>&1
  echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$S/racecheck.log" | tail -4
fi
say done
tar czf "${OUT:-out/gpu}/set.tgz" -C "${OUT:-out/gpu}" set
