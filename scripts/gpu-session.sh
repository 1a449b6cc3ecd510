#!/usr/bin/env bash
# One call on a GPU machine: the whole GPU check of sol. Runs from the repository root with a
# build made elsewhere (SOL_BUILD_DIR, default build-cuda) or builds one. Writes under $OUT
# (default out/gpu): run.tgz with the logs, the measured results and the report.
#   steps: device state, GPU tests (SOL_REQUIRE_GPU=1), compute-sanitizer memcheck + racecheck on
#   the small shapes, the full report (probe + every family + peers), render docs.
source "$(dirname "$0")/gpu-env.sh"
O=${OUT:-out/gpu}
R=$(outdir run)
steps=${SOL_STEPS:-"device tests sanitize report"}
t0=$(date +%s)
step() { echo "=== $1 ($(( $(date +%s) - t0 )) s)"; }
if [ ! -x "$B/sol" ]; then
  step build
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$B" -j 16 || exit 1
fi
for s in $steps; do
  case $s in
    device)
      step device
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv | tee "$R/nvidia-smi.csv"
      python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name())' 2>&1 | tee -a "$R/nvidia-smi.csv" ;;
    tests)
      step gpu-tests
      SOL_REQUIRE_GPU=1 "$B/sol_gpu_tests" ${GPU_TEST_FILTER:+--gtest_filter="$GPU_TEST_FILTER"} > "$R/gpu_tests.log" 2>&1
      echo "gpu tests exit $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" "$R/gpu_tests.log" | tail -30 ;;
    sanitize)
      step memcheck
      small='Registry/*:-*2147483659*:*65537*'
      SOL_REQUIRE_GPU=1 timeout 420 compute-sanitizer --tool memcheck --print-limit 20 "$B/sol_gpu_tests" --gtest_filter="$small" > "$R/memcheck.log" 2>&1
      echo "memcheck exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$R/memcheck.log" | tail -5
      step racecheck
      SOL_REQUIRE_GPU=1 timeout 300 compute-sanitizer --tool racecheck "$B/sol_gpu_tests" --gtest_filter='Registry/*banks*:-*65537*' > "$R/racecheck.log" 2>&1
      echo "racecheck exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$R/racecheck.log" | tail -5 ;;
    report)
      step report
      "$B/sol" report --out-dir "$R/report" > "$R/report.log" 2>&1
      echo "report exit $?"; tail -60 "$R/report.log" ;;
    *) "$B/sol" $s 2>&1 | tee -a "$R/extra.log" ;;
  esac
done
step pack
tar czf "$O/run.tgz" -C "$O" run && ls -la "$O"
