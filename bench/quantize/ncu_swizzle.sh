#!/usr/bin/env bash
# One device call (about 2 min): Nsight Compute on fpx.swizzle_scales's
# kernels from the package's bundle, whole and grouped, to see what holds
# them below copy speed (docs/results/2026-11-27-h100-30):
# DRAM throughput, occupancy, warp stalls. Carry
# .deps. Each argument is ROWSxCOLS[:GROUPS] (default 131072x224
# 131072x224:256 16384x256).
#   bash bench/quantize/ncu_swizzle.sh [131072x224:64 ...]
source "$(dirname "$0")/session_env.sh"
for arg in ${*:-131072x224 131072x224:256 16384x256}; do
  shape=${arg%%:*} groups=0
  [ "$arg" != "$shape" ] && groups=${arg#*:}
  echo "== $shape groups=$groups"
  ncu --clock-control none --kernel-name "regex:swizzle" --launch-skip 2 --launch-count 2 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    python3 -c "
import torch, fpx
r, c = (int(v) for v in '$shape'.split('x'))
s = torch.randint(0, 256, (r, c), dtype=torch.uint8, device='cuda')
g = $groups
ends = (torch.arange(1, g + 1, device='cuda') * r // g).to(torch.int32) if g else None
for _ in range(3):
    fpx.swizzle_scales(s, ends, check=False)
torch.cuda.synchronize()
" > "$OUT/ncu-swizzle-$shape-g$groups.txt" 2>&1
  grep -E "swizzle|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Limit|Stall|Waves Per SM" \
    "$OUT/ncu-swizzle-$shape-g$groups.txt" | head -40
done
