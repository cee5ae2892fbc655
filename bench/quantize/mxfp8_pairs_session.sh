#!/usr/bin/env bash
# One device call: column casts converted from re-paired bf16 words
# (.art/Q: build_artifacts.sh --cubin --out .art/Q with the fpxc of a checkout
# with experiments/column-pairs-all.patch of 83daf74 applied; removed from the
# tree after this measurement, docs/results/2026-11-27-h100-28) against the tree's
# (.art/sm_90a): check_cols_gpu.py on .art/Q's column artifacts (small shapes:
# the narrow tile), then time_variants.py A B B A for MXFP8 e4m3/e5m2 and
# MXFP4 columns (wide tile at the large shapes, narrow at 2048x7168) and the
# 3D expert cast at E = 1, 8, 64. Carry .deps and .art.
source "$(dirname "$0")/session_env.sh"
(cd /tmp && timeout 90 python3 "$root/bench/quantize/check_cols_gpu.py" --artifacts "$root/.art/Q" \
  --only mxfp8_e4m3_cols,mxfp4_cols) > "$OUT/check-cols.txt" 2>&1
echo "check_cols_gpu: exit $?; $(grep -c PASS "$OUT/check-cols.txt") PASS; $(tail -1 "$OUT/check-cols.txt")"
tv() { (cd /tmp && python3 "$root/bench/quantize/time_variants.py" --shapes "$1" \
  "$root/.art/sm_90a/$2.json" "$root/.art/Q/$2.json") >> "$OUT/variants.txt" 2>&1; }
tv 16384x8192,131072x7168,8192x5120,2048x7168 mxfp8_e4m3_cols
tv 16384x8192,8192x5120,2048x7168 mxfp8_e5m2_cols
tv 8192x5120,2048x7168 mxfp4_cols
tv 1x2048x7168,1x8192x5120,8x8192x5120,64x2048x7168 mxfp8_e4m3_experts
cat "$OUT/variants.txt"
# The variant's expert and column casts through the benchmark's own checks
# (bit-exact against the CPU reference), no peers.
(cd /tmp && timeout 150 python3 "$root/bench/quantize/bench_quantize.py" --artifacts "$root/.art/Q" \
  --cases mxfp8_e4m3_experts,mxfp8_e4m3_cols,mxfp8_e5m2_cols,mxfp4_cols --shapes 2048x7168,8192x5120 \
  --shapes-3d 1x2048x7168,8x8192x5120 --no-compile --no-triton --no-eager --out "$OUT/bq") > "$OUT/bq.txt" 2>&1
echo "bench_quantize on .art/Q: exit $?"; tail -25 "$OUT/bq.txt"
