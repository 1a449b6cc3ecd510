#!/usr/bin/env bash
# build.sh [-DNAME=VALUE...] [TARGET...]: configures $SOL_BUILD_DIR (default build) and builds
# TARGETs (default: all). The -D arguments are the caller's defaults for a new build directory;
# $SOL_CMAKE_ARGS, the user's, come after them, win, and are applied again to an existing
# directory whose cache holds another value. Installs what that build needs first (setup.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOL_BUILD_DIR:-$root/build}
defaults=()
targets=()
for a in "$@"; do
  case "$a" in -D*) defaults+=("$a") ;; *) targets+=("$a") ;; esac
done
read -r -a user <<<"${SOL_CMAKE_ARGS:-}"
cache=$build/CMakeCache.txt
cached() { [ -f "$cache" ] && sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
configure=()  # what a configure is given: the defaults only for a new directory
if [ ! -f "$cache" ]; then
  configure=("${defaults[@]}" "${user[@]}")
else
  for a in "${user[@]}"; do
    if [[ $a =~ ^-D([A-Za-z0-9_]+)(:[A-Z]+)?=(.*)$ ]] && [ "$(cached "${BASH_REMATCH[1]}")" != "${BASH_REMATCH[3]}" ]; then
      configure=("${user[@]}")
    fi
  done
fi

# The value NAME will have: the last -DNAME[:TYPE]=VALUE configured with, else the cache's, else $2.
setting() {
  local v a
  v=$(cached "$1" || true)
  for a in "${configure[@]}"; do
    [[ $a =~ ^-D$1(:[A-Z]+)?=(.*)$ ]] && v=${BASH_REMATCH[2]}
  done
  echo "${v:-$2}"
}
case "$(setting SOL_BUILD_TESTS ON)" in
  OFF | off | 0 | FALSE | false | NO | no) "$root/scripts/setup.sh" ;;
  *) "$root/scripts/setup.sh" --tests ;;
esac
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"

# A compiler cache, where one is installed, makes rebuilds and other checkouts cheap.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$root")}
fi
# Ninja, where installed (setup.sh installs it), for a new directory: it schedules the whole
# build at once and logs each object's compile time (.ninja_log). An existing directory keeps
# its generator.
generator=()
[ ! -f "$cache" ] && command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$cache" ] || [ ${#configure[@]} -gt 0 ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "${configure[@]}" >&2
fi
cmake --build "$build" -j "$(nproc)" ${targets[@]:+--target "${targets[@]}"} >&2
