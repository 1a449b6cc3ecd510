#!/usr/bin/env bash
# python-stage.sh: builds the CUDA Python package's extensions (sol._core and sol._kernels) with
# the project's CMake in $SOL_BUILD_DIR (default build-pycuda) and lays the package out in
# $SOL_BUILD_DIR/stage/sol, importable with PYTHONPATH=$SOL_BUILD_DIR/stage. For a machine without
# PyPI (pip install . needs scikit-build-core and nanobind from there) or to carry a built package
# to a GPU machine: build here, run there with that PYTHONPATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build-pycuda}
SOL_BUILD_DIR=$build SOL_CMAKE_ARGS="-DSOL_BUILD_PYTHON=ON -DSOL_BUILD_TESTS=OFF ${SOL_CMAKE_ARGS:-}" \
  "$root/scripts/build.sh" sol_python
stage=$build/stage/sol
rm -rf "$stage" && mkdir -p "$stage"
cp "$root"/python/sol/*.py "$stage"/
cp "$build"/python/_core*.so "$stage"/
cp "$build"/python/_kernels*.so "$stage"/ 2>/dev/null || echo "python-stage: no CUDA in this build, so no sol._kernels" >&2
echo "$build/stage"
