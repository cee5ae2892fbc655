#!/usr/bin/env bash
# One device call: Nsight Compute on the fpxc kernels (names starting with the
# stem) of the named bench artifacts (16384x8192 bf16 input): key sections,
# then pipe utilization. Carry .art.
#   bash bench/quantize/ncu_session.sh stem [stem ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
for stem in "$@"; do
  ncu --clock-control none --kernel-name "regex:^${stem}_" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section InstructionStats \
    python3 bench/quantize/profile_kernel.py --artifact ".art/sm_90a/$stem.json" \
      --shape 16384,8192 --reps 2 > "$OUT/ncu-$stem.txt" 2>&1
  # pipe utilization (launch-skip 1 over the function's kernels)
  ncu --clock-control none --kernel-name "regex:^${stem}_" --launch-skip 1 --launch-count 1 --metrics \
sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active,\
smsp__issue_active.avg.pct_of_peak_sustained_active,\
dram__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 bench/quantize/profile_kernel.py --artifact ".art/sm_90a/$stem.json" \
      --shape 16384,8192 --reps 2 2>&1 | grep -E "pct|==PROF== Profiling" | sed "s/^/$stem: /"
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Issue Slots Busy|Executed Ipc|Stall|One or More|No Eligible|Warp Cycles Per Issued|Static Shared|Waves" "$OUT/ncu-$stem.txt" | sed "s/^/$stem: /" | head -40
done
