#!/usr/bin/env bash
# sol's front door: builds on first use (installing missing Debian packages), then runs the CLI.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
build=${SOL_BUILD_DIR:-$root/build}
if [ ! -x "$build/sol" ] || [ -n "$(find "$root/src" "$root/include" "$root/cli" "$root/kernels" "$root/bench" "$root/CMakeLists.txt" -newer "$build/sol" -print -quit 2>/dev/null)" ]; then
  "$root/scripts/build.sh"
fi
exec "$build/sol" "$@"
