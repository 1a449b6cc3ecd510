#!/usr/bin/env bash
# gpu-check.sh [FAMILY[:ARGS]...]: the whole GPU check of sol, on a machine with a CUDA GPU, from
# the repository root. Uses the build in $SOL_BUILD_DIR (default build-cuda), or makes one.
# Steps, in order ($SOL_STEPS picks some, e.g. SOL_STEPS="tests bench"):
#   device    nvidia-smi's clocks, power and memory; the torch and triton versions
#   tests     the host suite, then the GPU suite with SOL_REQUIRE_GPU=1 (a skip is a failure);
#             $GPU_TEST_FILTER narrows the GPU suite
#   suite-start, suite-wait
#             the GPU suite as `tests` runs it, but detached, so that it outlives a command with a
#             time limit (the whole suite took 12 minutes on an H100) and other steps run beside
#             it (sanitize does: correctness only). suite-start starts it, logging to $SOL_RUN_DIR
#             (default /tmp/sol-gpu-run, outside $OUT); suite-wait waits up to $SUITE_WAIT seconds
#             (default 540) for it to end and copies its log into $OUT either way, e.g. one call
#             with SOL_STEPS="device suite-start sanitize suite-wait", later calls with
#             SOL_STEPS="suite-wait" until it says the suite ended. Time nothing while it runs.
#   sanitize  compute-sanitizer memcheck on the small registry shapes, racecheck on the kernels
#             that share tiles through shared memory (banks, the GEMM rungs, the decode GEMM,
#             the Hopper and the decode attention); $MEMCHECK_FILTER and $RACECHECK_FILTER
#             (GoogleTest patterns) narrow them, e.g. to the families an interrupted run did not reach;
#             each tool gets $SANITIZE_TIMEOUT seconds (default 600)
#   bench     with no FAMILY: `sol report` (probe, every family with its peers, the report);
#             else `sol bench FAMILY ARGS` per family with peers (ARGS comma-separated, e.g.
#             gemm_fp16:--headline), $BENCH_TIMEOUT seconds each (default 300)
#   table     the GEMM rungs and cuBLASLt at the decode shapes (m ≤ 64) into
#             results/model-shapes/gemm_bf16-decode.json, which replaces the committed one in this
#             tree; scripts/dispatch-table.py writes kernels/api/matmul_table*.inc from the results
#             (copies land in $OUT) and sol is rebuilt, so that a dispatch step after it measures
#             the new table. H200 only (the table is the H200's; an H100's decode rows come from
#             its dispatch step's file, bench/results/h100/model-shapes/dispatch-gemm_bf16-decode.json)
#   dispatch  the dispatched call (sol's public API) beside sol's rungs of its element type and
#             the C++ peer, at the model shape set: results/model-shapes/dispatch-NAME.json, one
#             file per family (the GEMM's decode and prefill apart); $DISPATCH picks names, e.g.
#             DISPATCH="gemm_bf16-decode softmax". The GEMM runs of table and dispatch get
#             $GEMM_BENCH_TIMEOUT seconds each (default 1200), the others $BENCH_TIMEOUT. On an
#             H100 the dispatch step takes ~27 minutes: the GEMM's decode 6 (349 s), its prefill ~8
#             (estimated from the shapes done within 300 s), the other families 13
#   python    the Python package staged on this build's archives (scripts/python-stage.sh, in
#             $SOL_RUN_DIR/py), its tests with SOL_REQUIRE_GPU=1, then bench/python's overhead and
#             Llama-block benchmarks into results/python/
#   v08-ab    v08's decompositions side by side at the shapes that decide its rule (the small and
#             mid cubes, the prefill shapes with few tiles): the rule's own, each tile width forced
#             (tile_n=64/128/256) and the split turned off (max_splits=1), with cuBLASLt, into
#             results/tuning/v08-ab.json ($V08_AB_SHAPES replaces the shapes)
#   profile   Nsight Compute on each of $NCU_CASES (words FAMILY/VARIANT@SHAPE@KERNEL_REGEX; default:
#             cross-entropy v02 beside softmax v05 at 4096 × 151936, whose bytes are the same and
#             which run one cluster kernel, and the RMSNorm backward at 4096 × 4096, 46 % of the
#             roof on an H100) into results/ncu/, the speed-of-light, memory, occupancy, launch,
#             warp-state and scheduler sections of the first matching launch, $NCU_TIMEOUT seconds
#             each (default 60)
#   extra     probe again, the doctor on each memory lesson's first rung, the harness self-test
#             family, copy under cold L2 and under CUDA graphs
# Everything lands in $OUT (default out/gpu): a log per step, results/ (measured JSON), report/,
# packed as $OUT/gpu-check.tgz. The exit status is the first failing step's. $SOL_CMAKE_ARGS go to
# the configure of a new build (e.g. -DSOL_CUDA_ARCH=90a, which halves the build, and
# -DCMAKE_PREFIX_PATH=DIR where GoogleTest, CLI11 and nlohmann-json are unpacked rather than
# installed: `dpkg -x` of their Debian packages into DIR, then DIR/usr).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
B=${SOL_BUILD_DIR:-build-cuda}
O=${OUT:-out/gpu}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} SOL_SOURCE_DIR=$root PYTHONUNBUFFERED=1
export SOL_PROFILE=$O/measured.json
mkdir -p "$O/results"
steps=${SOL_STEPS:-"device tests sanitize bench extra"}
gemm_timeout=${GEMM_BENCH_TIMEOUT:-1200}
run_dir=${SOL_RUN_DIR:-/tmp/sol-gpu-run}
sanitize_timeout=${SANITIZE_TIMEOUT:-600}
# Test names with a big shape in them (kept out of sanitizer runs, which are slow).
big='*65536*:*16384*:*65537*:*2147483659*:*32768*:*16383*:*8192*:*4096*:*1000003*:*2048*'
t0=$(date +%s)
status=0
step() { echo "=== $1 ($(($(date +%s) - t0)) s)"; }
# check NAME CMD...: runs CMD, output into $O/NAME.log; remembers the first failure.
check() {
  local name=$1
  shift
  "$@" >"$O/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc"
  [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc
  return 0
}

if [ ! -x "$B/sol" ] || [ ! -x "$B/sol_gpu_tests" ]; then
  step build
  # shellcheck disable=SC2086  # SOL_CMAKE_ARGS are words
  { cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSOL_BUILD_TESTS=ON ${SOL_CMAKE_ARGS:-} >/dev/null &&
    cmake --build "$B" -j "$(nproc)"; } || exit 1
fi
# gemm_shapes decode|prefill: the gemm_bf16 model shapes the decode rungs serve (m ≤ 64), or the
# others, as --shape arguments.
gemm_shapes() {
  "$B/sol" bench gemm_bf16 --model-shapes --plan |
    awk -v want="$1" 'NR > 1 { split($1, d, /[=,]/); if ((d[2] + 0 <= 64) == (want == "decode")) printf "--shape %s ", $1 }'
}
# dispatch_bench NAME SECONDS PATTERN ARGS...: one dispatch file, unless $DISPATCH names others.
dispatch_bench() {
  local name=$1 seconds=$2 pattern=$3
  shift 3
  case " ${DISPATCH:-$name} " in *" $name "*) ;; *) return 0 ;; esac
  step "dispatch $name"
  check "dispatch-$name" timeout "$seconds" "$B/sol" bench "$pattern" "$@" --no-peers \
    --json "$O/results/model-shapes/dispatch-$name.json"
  grep -E "^(dispatch|v[0-9]|peer)" "$O/dispatch-$name.log" | tail -5
}
for s in $steps; do
  case $s in
    device)
      step device
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw,power.limit \
        --format=csv | tee "$O/device.csv"
      python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name())' \
        2>&1 | tee -a "$O/device.csv" ;;
    tests)
      step "host tests"
      check host-tests "$B/sol_host_tests"
      grep -E "^\[  (FAILED|PASSED) |tests ran" "$O/host-tests.log" | tail -5
      step "gpu tests"
      check gpu-tests env SOL_REQUIRE_GPU=1 "$B/sol_gpu_tests" ${GPU_TEST_FILTER:+--gtest_filter="$GPU_TEST_FILTER"}
      grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|rel_l2|unwritten" "$O/gpu-tests.log" | tail -30 ;;
    suite-start)
      step "gpu tests, detached"
      mkdir -p "$run_dir" && rm -f "$run_dir"/gpu-tests.* && : >"$run_dir/gpu-tests.log"
      # shellcheck disable=SC2016  # expanded by the inner bash, from its arguments
      setsid bash -c 'SOL_REQUIRE_GPU=1 stdbuf -oL "$@" >"$0/gpu-tests.log" 2>&1; echo $? >"$0/gpu-tests.rc"' \
        "$run_dir" "$B/sol_gpu_tests" ${GPU_TEST_FILTER:+--gtest_filter="$GPU_TEST_FILTER"} </dev/null >/dev/null 2>&1 &
      date +%s >"$run_dir/gpu-tests.start"
      echo "gpu tests: started, logging to $run_dir/gpu-tests.log" ;;
    suite-wait)
      step "gpu tests, waiting"
      [ -f "$run_dir/gpu-tests.start" ] || { echo "suite-wait: no suite started in $run_dir (run suite-start)"; exit 2; }
      waited=0
      while [ ! -f "$run_dir/gpu-tests.rc" ] && [ "$waited" -lt "${SUITE_WAIT:-540}" ]; do
        sleep 5
        waited=$((waited + 5))
      done
      cp "$run_dir/gpu-tests.log" "$O/gpu-tests.log"
      began=$(cat "$run_dir/gpu-tests.start")
      if [ -f "$run_dir/gpu-tests.rc" ]; then
        rc=$(cat "$run_dir/gpu-tests.rc")
        echo "gpu tests: exit $rc, $(($(stat -c %Y "$run_dir/gpu-tests.rc") - began)) s"
        [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc
      else
        echo "gpu tests: still running after $(($(date +%s) - began)) s, $(grep -c '^\[       OK \]' "$O/gpu-tests.log") passed so far"
        grep -E '^\[ RUN      \]' "$O/gpu-tests.log" | tail -1
      fi
      grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|rel_l2|unwritten" "$O/gpu-tests.log" | tail -30 ;;
    sanitize)
      step memcheck
      check memcheck env SOL_REQUIRE_GPU=1 timeout "$sanitize_timeout" compute-sanitizer --tool memcheck --print-limit 20 \
        "$B/sol_gpu_tests" --gtest_filter="${MEMCHECK_FILTER:-Registry/*}:-$big"
      grep -E "ERROR SUMMARY|PASSED|FAILED" "$O/memcheck.log" | tail -5
      step racecheck
      check racecheck env SOL_REQUIRE_GPU=1 timeout "$sanitize_timeout" compute-sanitizer --tool racecheck "$B/sol_gpu_tests" \
        --gtest_filter="${RACECHECK_FILTER:-Registry/*banks__*:Registry/*gemm_bf16__v0*:Registry/*gemm_bf16__v1*:Registry/*attention*wgmma*:Registry/*attention__v06*}:-$big"
      grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" "$O/racecheck.log" | tail -5 ;;
    bench)
      if [ $# -eq 0 ]; then
        step report
        check report "$B/sol" report --out-dir "$O/report"
        tail -60 "$O/report.log"
      fi
      for spec in "$@"; do
        fam=${spec%%:*} args=""
        [ "$spec" != "$fam" ] && args=${spec#*:}
        step "bench $fam ${args//,/ }"
        # shellcheck disable=SC2086  # ARGS are words
        check "bench-$fam" timeout "${BENCH_TIMEOUT:-300}" "$B/sol" bench "$fam" ${args//,/ } --out-dir "$O/results"
        grep -E "^(v[0-9]|peer)" "$O/bench-$fam.log" | head -40
      done ;;
    table)
      step table
      gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
      case $gpu_name in
        *H200*) ;;
        *) echo "table: skipped: the dispatch table is the H200's, and this GPU is '${gpu_name:-unknown}'"; continue ;;
      esac
      mkdir -p "$O/results/model-shapes"
      # shellcheck disable=SC2046  # gemm_shapes prints words
      check table-bench timeout "$gemm_timeout" "$B/sol" bench \
        gemm_bf16/peer:cublasLt,v07,v08,v09,v10,v12,v13,v14 $(gemm_shapes decode) --budget 0.05 --rest 0.05 \
        --full-budget --no-peers --json "$O/results/model-shapes/gemm_bf16-decode.json"
      if [ -s "$O/results/model-shapes/gemm_bf16-decode.json" ]; then
        cp "$O/results/model-shapes/gemm_bf16-decode.json" bench/results/h200/model-shapes/
        check table-write python3 scripts/dispatch-table.py
        cp kernels/api/matmul_table*.inc "$O/"
        check table-build cmake --build "$B" --target sol
      fi
      tail -3 "$O/table-write.log" 2>/dev/null ;;
    dispatch)
      mkdir -p "$O/results/model-shapes"
      # shellcheck disable=SC2046  # gemm_shapes prints words
      {
        # The decode GEMMs are memory-bound: a short rest. The prefill GEMMs are compute-bound:
        # each record rests half a second and samples its whole budget, so that the clock one
        # drove into the power cap does not slow the next.
        dispatch_bench gemm_bf16-decode "$gemm_timeout" gemm_bf16/dispatch,peer:cublasLt,v09,v10,v12,v13,v14 $(gemm_shapes decode) \
          --budget 0.05 --rest 0.05 --full-budget
        dispatch_bench gemm_bf16-prefill "$gemm_timeout" gemm_bf16/dispatch,peer:cublasLt,v07,v08 $(gemm_shapes prefill) \
          --budget 0.15 --rest 0.5 --full-budget
        for spec in layernorm/dispatch,v02,v03 rmsnorm/dispatch,v02,v03 softmax/dispatch,v02,v03,v05 \
          layernorm_bwd/dispatch,v02 rmsnorm_bwd/dispatch,v02 softmax_bwd/dispatch,v02 crossentropy/dispatch,v01,v02 \
          attention/dispatch,v02,v03,v04,v05,v06 attention_bwd/dispatch,v01,v02,v03,v04; do
          dispatch_bench "${spec%%/*}" "${BENCH_TIMEOUT:-300}" "$spec" --model-shapes --budget 0.1
        done
      } ;;
    python)
      step python
      case $B in /*) abs_b=$B ;; *) abs_b=$root/$B ;; esac
      check python-stage env SOL_BUILD_DIR="$run_dir/py" SOL_CMAKE_ARGS="${SOL_CMAKE_ARGS:-} \
-DSOL_HOST_PREBUILT=$abs_b/libsol_host.a -DSOL_KERNELS_PREBUILT=$abs_b/libsol_kernels.a" scripts/python-stage.sh
      mkdir -p "$O/results/python"
      check python-tests env PYTHONPATH="$run_dir/py/stage" SOL_BIN="$abs_b/sol" SOL_REQUIRE_GPU=1 \
        python3 -m pytest -q -p no:cacheprovider tests/python
      for bench in overhead llama_block; do
        check "python-$bench" env PYTHONPATH="$run_dir/py/stage" timeout "${BENCH_TIMEOUT:-300}" \
          python3 "bench/python/$bench.py" --out "$O/results/python/$bench.json"
      done
      tail -2 "$O/python-tests.log"
      tail -n 4 "$O/python-overhead.log" "$O/python-llama_block.log" ;;
    v08-ab)
      step "v08 a/b"
      mkdir -p "$O/results/tuning"
      read -r -a ab_shapes <<<"${V08_AB_SHAPES:-m=1024,n=1024,k=1024 m=1023,n=1023,k=1023 m=2048,n=2048,k=2048 \
m=2049,n=2049,k=2049 m=512,n=768,k=3072 m=128,n=4096,k=14336 m=512,n=4096,k=14336 m=511,n=1023,k=1535 m=5000,n=3000,k=1000}"
      ab=() peer=()
      for shape in "${ab_shapes[@]}"; do
        ab+=(--shape "$shape" --shape "$shape,max_splits=1")
        for width in 64 128 256; do ab+=(--shape "$shape,tile_n=$width"); done
        peer+=(--shape "$shape")
      done
      check v08-ab timeout "$gemm_timeout" "$B/sol" bench gemm_bf16/v08 "${ab[@]}" --no-peers --rest 0.2 \
        --json "$O/results/tuning/v08-ab.json"
      check v08-ab-peer timeout "${BENCH_TIMEOUT:-300}" "$B/sol" bench gemm_bf16/peer:cublasLt "${peer[@]}" --no-peers \
        --rest 0.2 --json "$O/results/tuning/v08-ab-cublaslt.json"
      grep -E "^v08|^peer" "$O/v08-ab.log" "$O/v08-ab-peer.log" | tail -60 ;;
    profile)
      mkdir -p "$O/results/ncu"
      read -r -a ncu_cases <<<"${NCU_CASES:-crossentropy/v02_one_read_bf16@rows=4096,vocab=151936@cluster_row_kernel \
softmax/v05_cluster_bf16@rows=4096,cols=151936@cluster_row_kernel rmsnorm_bwd/v02_one_read_bf16@rows=4096,cols=4096@row_bwd}"
      for case in "${ncu_cases[@]}"; do
        IFS=@ read -r variant shape kernel <<<"$case"
        name=$(echo "${variant//\//-}-$shape" | tr '=,' '_x')
        step "profile $variant $shape"
        check "ncu-$name" timeout "${NCU_TIMEOUT:-60}" ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
          --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats -k "regex:$kernel" \
          -c 1 "$B/sol" bench "$variant" --shape "$shape" --no-peers --budget 0.01 --min-samples 3
        cp "$O/ncu-$name.log" "$O/results/ncu/$name.txt"
        grep -E "Duration|DRAM Throughput|Achieved Occupancy|No Eligible" "$O/ncu-$name.log" | head -6
      done ;;
    extra)
      step extra
      {
        "$B/sol" probe
        for v in copy/v01_scalar coalescing/v01_row_per_thread banks/v01_tile32 divergence/v02_loop_varied \
          precision/v01_relu_fp32; do
          "$B/sol" doctor "$v"
        done
        "$B/sol" bench selftest --no-peers
        "$B/sol" bench copy --cold-l2 --no-peers --json "$O/results/copy-cold.json"
        "$B/sol" bench copy --graph --no-peers --json "$O/results/copy-graph.json"
      } >"$O/extra.log" 2>&1
      echo "extra: exit $?"
      tail -25 "$O/extra.log" ;;
    *) echo "unknown step '$s' (device, tests, suite-start, suite-wait, sanitize, python, bench, table, dispatch, v08-ab, profile, extra)" >&2; exit 2 ;;
  esac
done
step pack
tar czf "$O/gpu-check.tgz" -C "$O" --exclude gpu-check.tgz . && ls -la "$O"
exit "$status"
