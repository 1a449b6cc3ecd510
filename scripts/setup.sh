#!/usr/bin/env bash
# setup.sh [--tests]: installs, if missing, the Debian 12 packages a build of sol needs (the CUDA
# toolkit is never installed here: without nvcc sol builds host-only). --tests adds what the test
# suites need.
set -euo pipefail
want=(cmake g++ make ninja-build nlohmann-json3-dev libcli11-dev)
[ "${1:-}" = --tests ] && want+=(libgtest-dev python3)
# The Python package's check builds in a virtual environment (Debian's python3 needs python3-venv).
if [ "${1:-}" = --tests ] && ! python3 -c "import venv, ensurepip" 2>/dev/null; then want+=(python3-venv); fi
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in "${want[@]}"; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "sol: installing ${need[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
