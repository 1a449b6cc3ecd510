#!/usr/bin/env bash
# check.sh [CTEST ARGS...]: builds everything, tests included, in build/ (or $SOL_BUILD_DIR; the
# launcher's build-host and build-cuda are left alone), runs the whole test suite, installs the
# package and builds and runs examples/consumer against it. The GPU suite is one ctest entry,
# run whole in its natural order; its tests skip visibly without a GPU and SOL_REQUIRE_GPU=1 makes
# a skip a failure. Each phase prints its wall time on stderr, and the run its total.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build}
_phase_prefix=check
. "$root/scripts/phases.sh"
# Generated sources equal their generator's output (fast; before the build).
phase "generated sources"
python3 "$root/scripts/gen-wgmma.py" --check
python3 "$root/scripts/api-tables.py" --check       # the attention, MX and copy dispatch tables
python3 "$root/scripts/dispatch-table.py" --check   # sol::matmul's tables
# The tests are required here, even in a directory configured without them. The CLI (with the
# libraries and kernels) first, then the test suites, so that each phase's time is its own.
phase "build: libraries, kernels, CLI"
SOL_BUILD_DIR=$build SOL_CMAKE_ARGS="${SOL_CMAKE_ARGS:-} -DSOL_BUILD_TESTS=ON" "$root/scripts/build.sh" sol
phase "build: everything else (test suites)"
SOL_BUILD_DIR=$build SOL_CMAKE_ARGS="${SOL_CMAKE_ARGS:-} -DSOL_BUILD_TESTS=ON" "$root/scripts/build.sh"
cd "$build"

# ---- the test suites --------------------------------------------------------------------------
# ctest prints a line per test (hundreds); show the failures and the summary, and instead of
# every skip how many skipped and why (the first one's reason). ctest.log keeps everything. The
# GPU suite is one entry (sol_gpu_tests): its own count of skipped tests is reported beside.
log=$build/ctest.log
phase "tests (ctest)"
set +e
ctest --output-on-failure -j "$(nproc)" "$@" >"$log" 2>&1
rc=$?
set -e
grep -vE '^ *Start +[0-9]+: |Test +#[0-9]+: .*(Passed|\*\*\*Skipped) |\(Skipped\)$|^The following tests did not run:' "$log" || true
skips=$(grep -oE ' - [A-Za-z0-9_./]+ \(Skipped\)$' "$log" | sed -E 's/^ - //; s/ \(Skipped\)$//' || true)
host_skips=$(printf '%s\n' "$skips" | grep -vx -e sol_gpu_tests -e '' || true)
if [ -n "$host_skips" ]; then
  first=$(printf '%s\n' "$host_skips" | head -n 1)
  why=$(./sol_host_tests --gtest_filter="$first" 2>&1 | grep -m1 -A1 ': Skipped$' | tail -n 1 || true)
  echo "$(printf '%s\n' "$host_skips" | wc -l) host tests skipped (e.g. $first: ${why:-see ctest.log})"
fi
if printf '%s\n' "$skips" | grep -qx sol_gpu_tests; then
  gpu=$(./sol_gpu_tests --gtest_brief=1 2>&1 || true)
  n=$(printf '%s\n' "$gpu" | sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?\.$/\1/p')
  all=$(printf '%s\n' "$gpu" | sed -nE 's/^\[==========\] ([0-9]+) tests? from .*/\1/p')
  why=$(printf '%s\n' "$gpu" | grep -m1 -A1 ': Skipped$' | tail -n 1 || true)
  echo "sol_gpu_tests: ${n:-?} of ${all:-?} GPU tests skipped (e.g. ${why:-see ctest.log})"
fi
[ "$rc" -eq 0 ] || exit "$rc"
# The Python package: pip install . into a virtual environment, then pytest (SOL_PYTHON=0 skips).
# Its build links this build's static host library (SOL_HOST_PREBUILT) instead of compiling src/
# again.
phase "python package (pip install ., pytest)"
if [ "${SOL_PYTHON:-1}" != 0 ]; then
  skbuild=${SKBUILD_CMAKE_ARGS:-}
  [ -f "$build/libsol_host.a" ] && skbuild="-DSOL_HOST_PREBUILT=$build/libsol_host.a${skbuild:+;$skbuild}"
  SKBUILD_CMAKE_ARGS=$skbuild SOL_BUILD_DIR=$build SOL_BIN=$build/sol "$root/scripts/python-check.sh"
fi

# ---- the installed package --------------------------------------------------------------------
# Installed into a fresh prefix, then used by examples/consumer, a project of its own that knows
# sol only through find_package(sol); its ctest runs each example (the kernel API example skips
# visibly without a GPU).
phase "install + examples/consumer"
prefix=$build/install-check
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
consumer=$build/consumer
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root/examples/consumer" -B "$consumer" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DSOL_CONSUMER_KERNELS="${SOL_CONSUMER_KERNELS:-ON}" "${launcher[@]}" >/dev/null
cmake --build "$consumer" -j "$(nproc)" >&2
(cd "$consumer" && ctest --output-on-failure)
# The host build again under ASan + UBSan, with the CLI fuzz smoke (SOL_SANITIZE=0 skips it; a
# compiler without the sanitizer runtimes says so and skips it).
phase "sanitize (ASan + UBSan build, tests, fuzz)"
if [ "${SOL_SANITIZE:-1}" != 0 ]; then "$root/scripts/sanitize.sh"; fi
