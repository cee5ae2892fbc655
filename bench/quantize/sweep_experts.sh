#!/usr/bin/env bash
# One device call: the MXFP8 3D expert cast (E, 2048, 7168) along N in 32x1
# blocks for E = 1 .. 256 (the seed 003 question: does it stay fast at small
# E?), beside the same elements cast as one tall matrix and the same-run
# torch.compile'd references (eager ones skipped: minutes at E = 256), then
# the plot of GB/s against E. Carry .deps and .art (cubins + .art/pyfpx).
# The checks run the eager reference at every E (7.5 GB inputs at E = 256:
# fine on an H200; on an 80 GB GPU pass BENCH_FLAGS=--no-check or fewer E).
# Exit status: bench_quantize.py's (nonzero when a check fails).
#   bash bench/quantize/sweep_experts.sh [E list, default 1,2,4,8,16,32,64,128,256]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
shapes=$(echo "${1:-1,2,4,8,16,32,64,128,256}" | tr ',' '\n' | sed 's/$/x2048x7168/' | paste -sd,)
python3 bench/quantize/bench_quantize.py --artifacts .art/sm_90a --fpx-path .art/pyfpx \
  --out "$OUT" --no-2d --shapes-3d "$shapes" --cases mxfp8_e4m3_experts,mxfp8_e4m3_floor \
  --no-eager ${BENCH_FLAGS:-} > "$OUT/bench.txt" 2>&1
status=$?
grep -vE '^\s*$' "$OUT/bench.txt" | tail -24
python3 docs/results/tools/plot_sweep.py "$OUT/results.json" "$OUT/sweep.png" \
  mxfp8_e4m3_experts mxfp8_e4m3_floor 2>&1 | tail -2
exit $status
