#!/usr/bin/env bash
# python-check.sh: builds and installs the Python package (pip install .) into a virtual
# environment under $SOL_BUILD_DIR (default build/), then runs tests/python with pytest. The package
# is the host-only one (no kernels, so no CUDA compile) unless SOL_PYTHON_CUDA=1.
# The extension's build directory persists there, and ccache serves the host library's objects
# when the CMake build compiled them already.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build}
venv=$build/venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
python3 "$root/scripts/python-docs.py" --check  # docs/python.md is generated from the docstrings
config=()
[ "${SOL_PYTHON_CUDA:-0}" = 1 ] || config+=(-C "cmake.define.SOL_ENABLE_CUDA=OFF")
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$root
  config+=(-C "cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache" -C "cmake.define.CMAKE_CUDA_COMPILER_LAUNCHER=ccache")
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$root[test]" -C "build-dir=$build/python" "${config[@]}"
cd "$build"  # not the source tree: the tests import the installed package
SOL_BIN=${SOL_BIN:-$build/sol} "$venv/bin/python" -m pytest -q "$root/tests/python"
