#!/usr/bin/env bash
# One device call for the 2026-11-27 (second) session's column-cast change:
# fp4x2 column casts in 256 x 64 tiles (128-byte output runs) and blocks
# taller than 32 rows cast by 32-row segments. Times artifact sets A B C C B
# A (ab_session.sh: A the commit before, 1c4d1c8; B the 256 x 64 tile and C
# that with MXFP4 at four CTAs an SM, variants never committed: the tile was
# rejected, docs/results/2026-11-27-h100-27 says what it was), runs the quantize and global-scale GPU tests, then
# check_cols_gpu.py over the benchmark's and the GPU tests' column
# artifacts. Carry .deps and .art (with .art/gpu, .art/A, .art/B, .art/C).
#   bash bench/quantize/fp4_tiles_session.sh [cases]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
cases=${1:-mxfp4_cols,nvfp4_16x1_cast,nvfp4_16x1,fp8_128x1_cols}
TESTS=${TESTS-'QuantizeKernels|GlobalScale'} OUT="$OUT" \
  bash bench/quantize/ab_session.sh .art/A .art/B .art/C "$cases"
status=$?
mkdir -p /tmp/cols && cp .art/B/*.json .art/B/*.ptx .art/B/*.cubin /tmp/cols/ 2>/dev/null
cp .art/gpu/sm_90a/q_*cols*.json .art/gpu/sm_90a/q_*cols*.ptx /tmp/cols/
(cd /tmp && python3 "$OLDPWD/bench/quantize/check_cols_gpu.py" --artifacts /tmp/cols) \
  > "$OUT/check-cols.txt" 2>&1 || status=1
grep -E "FAIL|failing" "$OUT/check-cols.txt" | tail -8
exit $status
