#!/usr/bin/env bash
# One device call: the DRAM and L2 traffic of fpxc cast kernels against the
# bytes they must move, to tell a kernel that moves extra bytes (partial-sector
# write-backs, re-reads) from one that moves the right bytes slowly. Nsight
# Compute at the GPU's own clocks; each argument is stem:shape (shape as
# profile_kernel.py takes it). Carry .art/sm_90a (with cubins) and .deps.
#   bash bench/quantize/ncu_dram.sh mxfp8_e4m3_cols:16384,8192 mxfp8_e4m3_experts:1,8192,5120
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,\
lts__t_sectors_op_read_lookup_miss.sum,lts__t_sectors_op_write_lookup_miss.sum,\
lts__t_requests_op_write.sum,lts__t_requests_op_read.sum
for arg in "$@"; do
  stem=${arg%%:*} shape=${arg#*:}
  echo "== $stem $shape"
  ncu --clock-control none --kernel-name "regex:^${stem}_" --launch-skip 1 --launch-count 1 \
    --metrics "$metrics" \
    python3 bench/quantize/profile_kernel.py --artifact ".art/sm_90a/$stem.json" \
      --shape "$shape" --reps 2 2>&1 | tee "$OUT/ncu-dram-$stem-${shape//,/x}.txt" \
    | grep -E "^\s+(gpu__|dram__|lts__)" | sed "s/^/$stem $shape: /"
done
