#!/usr/bin/env bash
# One device call: Nsight Compute on the per-row cast's long-row kernel
# (fp8_per_row's `_quantize_rsl`, one CTA an SM where a row's staged part
# fills the budget) at row lengths where it trails the copy on an H200
# (docs/results/2026-11-25-h200-24): speed of light, memory workload, warp
# states with the SASS lines that stall most, occupancy. Clocks left alone.
# Carry .deps and .art/sm_90a (cubins: build_artifacts.sh --cubin).
#   bash bench/quantize/ncu_long_rows.sh [ROWSxK ...]   (default 1024x131072 800x163840)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
ART=${ART:-.art/sm_90a}
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
for shape in ${*:-1024x131072 800x163840}; do
  ncu --clock-control none --kernel-name "regex:^fp8_per_row_quantize_rsl" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SourceCounters --section Occupancy --section SchedulerStats --section LaunchStats \
    --import-source no --print-details all \
    python3 bench/quantize/profile_kernel.py --artifact "$ART/fp8_per_row.json" \
      --shape "${shape/x/,}" --reps 2 > "$OUT/ncu-long-rows-$shape.txt" 2>&1
  grep -iE "duration|dram throughput|memory throughput|stall|warp cycles|eligible|issued warp|achieved occ|grid size|registers|block limit" \
    "$OUT/ncu-long-rows-$shape.txt" | sed "s/^/$shape: /" | head -45
done
