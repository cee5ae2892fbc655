#!/usr/bin/env bash
# One device call: Nsight Compute readings (at the GPU's own clocks) of the
# NVFP4 cast with a given amax on one matrix (65536x5120) and on the same
# elements as a batch with an amax per matrix (8x8192x5120), the bundle's
# kernels, to see why the batch is slower (docs/results/2026-11-23-h200-9).
# Carry .deps, .art (with .art/pyfpx: bench/quantize/build_pyfpx.sh) and
# python-bindings/kernels-full.
#   bash bench/quantize/ncu_batch_vs_matrix.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
K=python-bindings/kernels-full/sm_90a
run() { # name, artifact stem, shape, extra flags
  ncu --clock-control none --kernel-name regex:quantize --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section InstructionStats \
    --section Occupancy --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis \
    --print-details all \
    python3 bench/quantize/profile_kernel.py --artifact "$K/$2.json" --shape "$3" --reps 2 $4 \
    > "$OUT/ncu-$1.txt" 2>&1
  grep -iE "duration|executed ipc|issue slots busy|warp cycles per issued|stall (long|not sel|math|wait|short|no inst|barrier|lg thr|mio)|no eligible|achieved occ|registers per|instructions \[|dram throughput|memory throughput|l2 hit|l1/tex hit|local" \
    "$OUT/ncu-$1.txt" | sed "s/^/$1: /" | head -40
}
run matrix q_nvfp4_bf16_r16_floor_rn_ag 65536,5120 ""
run batch q_nvfp4_bf16_r16_floor_rn_pm_3d 8,8192,5120 --per-matrix
