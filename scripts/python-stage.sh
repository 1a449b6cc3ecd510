#!/usr/bin/env bash
# python-stage.sh: builds the Python package's extensions (sol._core, and sol._kernels where nvcc is
# found) with the project's CMake in $SOL_BUILD_DIR (default build-pycuda), for the python3 on PATH,
# and lays the package out in $SOL_BUILD_DIR/stage/sol: PYTHONPATH=$SOL_BUILD_DIR/stage imports it.
# For a machine without PyPI, where pip install . cannot fetch its build requirements (nanobind,
# scikit-build-core must be installed already; CMake arguments: $SOL_CMAKE_ARGS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build-pycuda}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
read -r -a user <<<"${SOL_CMAKE_ARGS:-}"
[ -f "$build/CMakeCache.txt" ] && generator=()  # an existing build keeps its generator
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DSOL_BUILD_PYTHON=ON -DSOL_BUILD_TESTS=OFF \
  -DSOL_BUILD_CLI=OFF -DPython_EXECUTABLE="$(command -v python3)" "${launcher[@]}" "${user[@]}" >/dev/null
cmake --build "$build" --target sol_python -j "$(nproc)"
stage=$build/stage/sol
rm -rf "$stage" && mkdir -p "$stage"
cp "$root"/python/sol/*.py "$stage"/
cp "$build"/python/_core*.so "$stage"/
cp "$build"/python/_kernels*.so "$stage"/ 2>/dev/null || echo "python-stage: no CUDA in this build, so no sol._kernels" >&2
echo "$build/stage"
