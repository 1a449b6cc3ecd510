#!/usr/bin/env bash
# A GPU call for chosen families: their GPU tests (SOL_REQUIRE_GPU=1), then `sol bench` of each
# family with peers into $OUT/fam/results/<family>.json. Usage: gpu-families.sh FAMILY... ;
# GPU_TEST_FILTER, TEST_TIMEOUT and BENCH_TIMEOUT (per family) adjust it.
source "$(dirname "$0")/gpu-env.sh"
F=$(outdir fam)
mkdir -p "$F/results"
t0=$(date +%s)
filter=${GPU_TEST_FILTER:-}
if [ -z "$filter" ]; then for f in "$@"; do filter+="Registry/*${f}__*:"; done; fi
echo "=== gpu tests ($filter)"
SOL_REQUIRE_GPU=1 timeout "${TEST_TIMEOUT:-300}" "$B/sol_gpu_tests" --gtest_filter="$filter" > "$F/gpu_tests.log" 2>&1
echo "exit $? after $(( $(date +%s) - t0 )) s"
grep -E "^\[  (FAILED|PASSED) |tests ran|Failure|Expected|Which is|rel_l2|unwritten" "$F/gpu_tests.log" | head -60
for f in "$@"; do
  echo "=== bench $f ($(( $(date +%s) - t0 )) s)"
  timeout "${BENCH_TIMEOUT:-120}" "$B/sol" bench "$f" --out-dir "$F/results" ${BENCH_ARGS:-} > "$F/bench-$f.log" 2>&1
  echo "exit $?"; grep -v "^sol: " "$F/bench-$f.log" | head -${BENCH_LINES:-40}
done
tar czf "${OUT:-out/gpu}/fam.tgz" -C "${OUT:-out/gpu}" fam
