#!/usr/bin/env bash
# One device call: MXFP4 32x1 columns converted from re-paired bf16 words
# (convertBf16Pairs, as the row casts; .art/P, cee49f3) against the tree
# before (.art/H, 58aaff4), and .art/P at six CTAs an SM (.art/P6: P's PTX
# with the wide kernel's .minnctapersm 6, reassembled by ptxas), time_variants.py A B C
# C B A; then check_cols_gpu.py and the quantize GPU tests on the new
# artifacts. Carry .deps and .art (.art/gpu rebuilt).
source "$(dirname "$0")/session_env.sh"
(cd /tmp && python3 "$root/bench/quantize/time_variants.py" --shapes 16384x8192,131072x7168,8192x5120 \
  "$root"/.art/H/mxfp4_cols.json "$root"/.art/P/mxfp4_cols.json "$root"/.art/P6/mxfp4_cols.json) \
  > "$OUT/variants.txt" 2>&1
tail -20 "$OUT/variants.txt"
rm -rf /tmp/cols && mkdir -p /tmp/cols && cp .art/sm_90a/* /tmp/cols/ && cp .art/P/mxfp4_cols.* /tmp/cols/
cp .art/gpu/sm_90a/q_*cols*.json .art/gpu/sm_90a/q_*cols*.ptx /tmp/cols/
(cd /tmp && timeout 90 python3 "$root/bench/quantize/check_cols_gpu.py" --artifacts /tmp/cols) \
  > "$OUT/check-cols.txt" 2>&1
echo "check_cols_gpu: exit $?; $(grep -c PASS "$OUT/check-cols.txt") PASS; $(tail -1 "$OUT/check-cols.txt")"
OUT="$OUT" timeout 300 bash test/gpu/run_on_gpu.sh 'QuantizeKernels' > "$OUT/tests.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)" "$OUT/tests.log" | tail -4
