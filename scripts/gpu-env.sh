# Sourced by the scripts/gpu-*.sh one-call recipes: the repository root, the build to use, and the
# environment a build carried from another machine needs. Sets `root`, `B` and `outdir NAME`.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
B=${SOL_BUILD_DIR:-build-cuda}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} SOL_SOURCE_DIR=$root PYTHONUNBUFFERED=1
# outdir NAME: makes ${OUT:-out/gpu}/NAME, points SOL_PROFILE into it and prints its path.
outdir() {
  local d=${OUT:-out/gpu}/$1
  mkdir -p "$d"
  export SOL_PROFILE=$d/measured.json
  echo "$d"
}
# Test names with a big shape in them (kept out of sanitizer runs, which are slow).
big_shapes='*65536*:*16384*:*65537*:*2147483659*:*32768*:*16383*:*8192*:*4096*:*1000003*:*2048*'
