#!/usr/bin/env bash
# bench/comm/measure.sh [N]: the NCCL measurement of the collective model, in one call, on a machine
# with N ≥ 2 GPUs (default 2): builds sol with CUDA and NCCL, runs `sol bench comm` over every
# collective from 8 B to 8 GiB with NVLink SHARP off (NCCL_NVLS_ENABLE=0) and the torch.distributed
# peer, then again with one process per GPU, writes bench/results/<gpu>xN/comm.json and
# comm-process-per-gpu.json, and regenerates docs/comm.md from them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-2}
cd "$root"
export NCCL_NVLS_ENABLE=0
# The front door builds build-cuda (CLI and kernels, no tests) on a machine with a GPU.
./sol hw show h200 >/dev/null
ops=all-reduce,all-gather,reduce-scatter,all-to-all,broadcast,send-recv
./sol bench comm --gpus "$n" --bytes 8:8GiB --ops "$ops" --out-dir bench/results
# The same plan with one process per GPU (ncclCommInitRank), as multi-process frameworks run NCCL.
./sol bench comm --process-per-gpu --gpus "$n" --bytes 8:8GiB --ops "$ops" --no-peers --out-dir bench/results
./sol docs --results bench/results/h200 --readme ""
echo "bench/comm/measure.sh: wrote bench/results/*x$n/comm.json and docs/comm.md" >&2
