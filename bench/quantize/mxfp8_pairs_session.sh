#!/usr/bin/env bash
# One device call: MXFP8 32x1 columns converted from re-paired bf16 words
# (.art/Q: build_artifacts.sh --cubin --out .art/Q with the fpxc of a checkout
# with experiments/column-pairs-all.patch applied) against the tree's
# (.art/sm_90a), time_variants.py A B B A, then check_cols_gpu.py on .art/Q's
# column artifacts. Carry .deps and .art.
source "$(dirname "$0")/session_env.sh"
(cd /tmp && timeout 60 python3 "$root/bench/quantize/check_cols_gpu.py" --artifacts "$root/.art/Q" \
  --only mxfp8_e4m3_cols,mxfp4_cols) > "$OUT/check-cols.txt" 2>&1
echo "check_cols_gpu: exit $?; $(grep -c PASS "$OUT/check-cols.txt") PASS; $(tail -1 "$OUT/check-cols.txt")"
(cd /tmp && python3 "$root/bench/quantize/time_variants.py" --shapes 16384x8192,131072x7168,8192x5120 \
  "$root"/.art/sm_90a/mxfp8_e4m3_cols.json "$root"/.art/Q/mxfp8_e4m3_cols.json) > "$OUT/variants.txt" 2>&1
tail -14 "$OUT/variants.txt"
