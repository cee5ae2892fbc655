#!/usr/bin/env bash
# One device call: how the MXFP8 casts' time grows with size around the
# single-expert shape (8192x5120, 126 MB moved), where they fall below 90% of
# the 1 GiB copy. Row cast (1x32) and expert cast (32x1 along N) at
# (1, M, 5120) for M = 1024 .. 32768, beside a copy of the same bytes; then
# Nsight Compute's duration, waves and DRAM figures of both kernels at
# M = 8192 and 16384, to split the time outside the kernel (launch) from the
# time inside (ramp and tail). Carry .deps and .art (cubins: build_artifacts.sh --cubin).
#   bash bench/quantize/sweep_sizes.sh [artifact dir, default .art/sm_90a]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
ART=${1:-.art/sm_90a}
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
shapes=$(echo "${MS:-1024,2048,3072,4096,6144,8192,10240,12288,16384,24576,32768}" | tr ',' '\n' \
  | sed 's/^/1x/; s/$/x5120/' | paste -sd,)
python3 bench/quantize/bench_quantize.py --artifacts "$ART" --out "$OUT/sweep" --no-2d \
  --shapes-3d "$shapes" --cases mxfp8_e4m3_experts,mxfp8_e4m3_floor \
  --no-compile --no-eager --no-check > "$OUT/sweep.txt" 2>&1
status=$?
grep -E "\] (fpxc |device-to-device)" "$OUT/sweep.txt" | cut -c11-
for stem in mxfp8_e4m3_floor mxfp8_e4m3_experts; do
  for m in 8192 16384; do
    if [ $stem = mxfp8_e4m3_floor ]; then shape=$m,5120; else shape=1,$m,5120; fi
    ncu --clock-control none --kernel-name "regex:^${stem}_" --launch-skip 2 --launch-count 1 \
      --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__waves_per_multiprocessor,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_active.avg,sm__cycles_elapsed.max \
      python3 bench/quantize/profile_kernel.py --artifact "$ART/$stem.json" --fpx-path "" \
        --shape $shape --reps 4 > "$OUT/ncu-$stem-$m.txt" 2>&1
    grep -E "^\s+(gpu__|launch__|sm__|dram__)" "$OUT/ncu-$stem-$m.txt" | sed "s/^/$stem $m: /"
  done
done
exit $status
