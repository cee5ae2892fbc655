#!/usr/bin/env bash
# One device call (2026-11-27, second session): the fp32-scale column casts
# before and after their second column was read again (.art/V: before, the
# segments alone, never committed by themselves; .art/W: after, 8c29500; fp8
# 128x1 and 32x1), beside MXFP8 128x1 and 32x1 columns, by
# time_variants.py; then every C++ GPU test (test/gpu/full_check.sh ctest).
# Carry .deps and .art (with .art/gpu, .art/V, .art/W).
source "$(dirname "$0")/session_env.sh"
(cd /tmp && python3 "$root/bench/quantize/time_variants.py" \
  "$root"/.art/V/fp8_128x1_cols.json "$root"/.art/W/fp8_128x1_cols.json \
  "$root"/.art/V/fp8_32x1_cols.json "$root"/.art/W/fp8_32x1_cols.json \
  "$root"/.art/V/mxfp8_128x1_cols.json "$root"/.art/V/mxfp8_e4m3_cols.json) \
  > "$OUT/variants.txt" 2>&1
tail -30 "$OUT/variants.txt"
OUT="$OUT" timeout "${CTEST_LIMIT_S:-470}" bash test/gpu/full_check.sh ctest
