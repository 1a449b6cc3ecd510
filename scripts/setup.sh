#!/usr/bin/env bash
# Installs what sol needs on Debian 12 (with the CUDA toolkit already present), if missing.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake g++ make libgtest-dev nlohmann-json3-dev libcli11-dev python3; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "sol: installing ${need[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# nvcc is optional: without it sol builds the host library, CLI and host tests.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "sol: using /usr/local/cuda/bin/nvcc" >&2
fi
