#!/usr/bin/env bash
# One device call: MXFP4 32x1 columns at five CTAs an SM (.art/H, the tree's
# rule: 48 registers, 8 bytes spilled) against four (.art/M4: 64, none; the
# minctasm rule edited to give the wide fp4 tile 4, not committed),
# time_variants.py A B B A at the issue's shapes and 8192x5120. Carry .deps
# and .art.
source "$(dirname "$0")/session_env.sh"
(cd /tmp && python3 "$root/bench/quantize/time_variants.py" --shapes 16384x8192,131072x7168,8192x5120 \
  "$root"/.art/H/mxfp4_cols.json "$root"/.art/M4/mxfp4_cols.json) > "$OUT/variants.txt" 2>&1
tail -20 "$OUT/variants.txt"
