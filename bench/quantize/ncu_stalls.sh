#!/usr/bin/env bash
# One device call: why the warps of a cast kernel wait. Nsight Compute's
# warp-state statistics (stall reasons per issued instruction) and source
# counters (the SASS lines that stall most, with their reasons) for the fpxc
# cast kernel of each named bench artifact at 16384x8192 bf16; the readings
# the Hadamard + NVFP4 + rs cast still needs (docs/results/2026-11-23-h200-7:
# neither issue- nor DRAM-bound). Carry .art/sm_90a (with cubins) and .deps.
# Every ncu call here and in the other scripts leaves the clocks alone
# (--clock-control none, as the lent machines' notes ask): its default locks them to base, where
# these casts were 34% slower than at the GPU's own clocks and looked
# issue-bound (docs/results/2026-11-23-h200-8).
#   bash bench/quantize/ncu_stalls.sh stem [stem ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
for stem in "$@"; do
  ncu --clock-control none --kernel-name "regex:^${stem}_quantize" --launch-skip 1 --launch-count 1 \
    --section WarpStateStats --section SourceCounters --section Occupancy \
    --section SchedulerStats --import-source no --print-details all \
    python3 bench/quantize/profile_kernel.py --artifact ".art/sm_90a/$stem.json" \
      --shape 16384,8192 --reps 2 > "$OUT/ncu-stalls-$stem.txt" 2>&1
  grep -iE "stall|warp cycles|eligible|issued warp|no eligible|active warps|theoretical occ|achieved occ" \
    "$OUT/ncu-stalls-$stem.txt" | sed "s/^/$stem: /" | head -60
done
