#!/usr/bin/env bash
# One device call: sweep_sizes.sh (fpxc's row and expert casts at (1, M, 5120) beside
# the Triton peers), then ncu_rows_vs_triton.sh (Nsight Compute of fpxc's row cast and the
# autotuned Triton one) at M = 8192, 16384.
#   carry: .deps .art/sm_90a
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
MS=2048,4096,8192,12288,16384,32768 bash bench/quantize/sweep_sizes.sh 2>&1 \
  | grep -v "^mxfp8_e4m3_experts" | tee "$OUT/sweep-summary.txt" | head -60
grep -E "Triton" "$OUT/sweep.txt" | cut -c11- | head -20
MS=8192,16384 bash bench/quantize/ncu_rows_vs_triton.sh
