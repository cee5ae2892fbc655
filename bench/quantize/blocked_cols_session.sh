#!/usr/bin/env bash
# One device call (about 5 min on an H100): column casts with blocked 128x4
# scales. The quantize GPU test (sm_90a and sm_80 side by side), the Python
# GPU suite's bundled blocked column entries (`blk`), then time_variants.py
# of the column and expert casts with row-major scales against blocked ones
# (the GPU-test artifacts; JIT from PTX). Carry .deps and .art/gpu.
source "$(dirname "$0")/session_env.sh"
t0=$SECONDS
OUT="$OUT/ctest" FPX_GPU_JOBS=2 timeout 330 bash test/gpu/run_on_gpu.sh "Targets/QuantizeKernels" \
  > "$OUT/ctest.out" 2>&1
echo "ctest QuantizeKernels: $((SECONDS - t0)) s; $(grep -E 'tests passed' "$OUT/ctest/ctest-gpu.log" | tail -1)"
grep -E '\*\*\*(Failed|Exception|Timeout)|Failure|mismatch' "$OUT/ctest/ctest-gpu.log" | head -20
timeout 120 python3 -m pytest -q -p no:cacheprovider python-bindings/tests/test_gpu.py -k blk \
  > "$OUT/pytest-blk.log" 2>&1
echo "pytest -k blk: $(tail -1 "$OUT/pytest-blk.log")"
a=.art/gpu/sm_90a
(cd /tmp && timeout 60 python3 "$root/bench/quantize/time_variants.py" --shapes 16384x8192,8192x5120 \
  "$root/$a/q_mxfp8_cols.json" "$root/$a/q_mxfp8_cols_blocked.json" \
  && timeout 60 python3 "$root/bench/quantize/time_variants.py" --shapes 1x8192x5120,8x8192x5120 \
  "$root/$a/q_mxfp8_experts.json" "$root/$a/q_mxfp8_experts_blocked.json") > "$OUT/variants.txt" 2>&1
cat "$OUT/variants.txt"
