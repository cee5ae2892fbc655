#!/usr/bin/env bash
# One device call: Nsight Compute duration and launch shape of fpxc's MXFP8 row
# cast beside the Triton peer's (the configuration its autotuner picks) at
# (M, 5120) for M in $MS (default 2048,4096,8192): is a gap between their
# event-timed calls inside the kernels or around them?
#   carry: .deps .art/sm_90a        usage: MS=2048,4096 bash bench/quantize/ncu_rows_vs_triton.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
M="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__waves_per_multiprocessor,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.max"
for m in $(echo "${MS:-2048,4096,8192}" | tr ',' ' '); do
  ncu --clock-control none --kernel-name regex:^mxfp8_e4m3_floor_ --launch-skip 2 --launch-count 3 --metrics $M \
    python3 bench/quantize/profile_kernel.py --artifact .art/sm_90a/mxfp8_e4m3_floor.json --fpx-path "" \
      --shape $m,5120 --reps 6 > "$OUT/ncu-fpxc-$m.txt" 2>&1
  grep -E "^\s+(gpu__|launch__|sm__|dram__)" "$OUT/ncu-fpxc-$m.txt" | sed "s/^/fpxc $m: /"
  cfg=$(python3 bench/quantize/profile_triton_peer.py --key mx_rows_floor --shape $m,5120 \
        | sed -n 's/^config //p')
  ncu --clock-control none --kernel-name regex:_mx_rows --launch-skip 2 --launch-count 3 --metrics $M \
    python3 bench/quantize/profile_triton_peer.py --key mx_rows_floor --shape $m,5120 --config $cfg \
      --reps 6 > "$OUT/ncu-triton-$m.txt" 2>&1
  grep -E "^\s+(gpu__|launch__|sm__|dram__)" "$OUT/ncu-triton-$m.txt" | sed "s/^/triton($cfg) $m: /"
done
