#!/usr/bin/env bash
# One device call: sweep_sizes.sh (fpxc row and expert casts at (1, M, 5120), now beside
# the Triton peers) and Nsight Compute of the autotuned Triton row cast at M = 8192, 16384.
#   carry: .deps .art/sm_90a
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
source bench/quantize/ensure_fpx.sh
MS=2048,4096,8192,12288,16384,32768 bash bench/quantize/sweep_sizes.sh 2>&1 | grep -v "^mxfp8_e4m3_experts" | tee $OUT/sweep-summary.txt | head -60
grep -E "Triton" $OUT/sweep.txt | cut -c11- | head -20
for m in 8192 16384; do
  cfg=$(python3 bench/quantize/profile_triton_peer.py --key mx_rows_floor --shape $m,5120 | sed 's/.*BM.: \([0-9]*\), .BK.: \([0-9]*\)} num_warps=\([0-9]*\)/\1,\2,\3/')
  echo "triton config at $m: $cfg"
  ncu --clock-control none --kernel-name regex:_mx_rows --launch-skip 2 --launch-count 1 \
      --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__waves_per_multiprocessor,launch__occupancy_limit_registers,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,sm__cycles_elapsed.max \
      python3 bench/quantize/profile_triton_peer.py --key mx_rows_floor --shape $m,5120 --config $cfg --reps 4 > $OUT/ncu-triton-$m.txt 2>&1
  grep -E "^\s+(gpu__|launch__|sm__|dram__)" $OUT/ncu-triton-$m.txt | sed "s/^/triton $m: /"
done
