#!/usr/bin/env bash
# Second-look commands on a GPU machine: probe again, the doctor on each family's first rung, the
# harness self-test family, and the cold-L2 and graph timing modes. Output under $OUT/extra.
source "$(dirname "$0")/gpu-env.sh"
E=$(outdir extra)
run() { echo "=== sol $*"; "$B/sol" "$@" 2>&1 | tee -a "$E/extra.log" | tail -${TAILN:-25}; }
run probe
for v in copy/v01_scalar coalescing/v01_row_per_thread banks/v01_tile32 divergence/v02_loop_varied precision/v01_relu_fp32; do
  run doctor "$v"
done
run bench selftest --no-peers
run bench copy --cold-l2 --no-peers --json "$E/copy-cold.json"
run bench copy --graph --no-peers --json "$E/copy-graph.json"
