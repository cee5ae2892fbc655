#!/usr/bin/env bash
# One device call for a change to the column casts (the 2026-11-27 session's
# fp4x2 column kernels): the benchmark of the column and newly benchmarked
# cases beside their compiled peers, the quantize and global-scale GPU
# tests on both targets, then compute-sanitizer memcheck and racecheck on
# the quantize kernels' test program (sm_90a). Carry .deps and .art (with
# .art/gpu). Logs under $OUT.
#   bash bench/quantize/cols_session.sh [cases]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
cases=${1:-nvfp4_16x1,nvfp4_16x1_cast,mxfp4_cols,mxfp8_e4m3_cols,mxfp8_e5m2_cols,mxfp8_e4m3_cols_rceil,mxfp8_e5m2_rceil,mxfp6_e3m2_4p2,nvfp4_cast}
FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
  > "$OUT/pip.log" 2>&1 || { tail -20 "$OUT/pip.log"; exit 1; }
python3 bench/quantize/bench_quantize.py --artifacts .art/sm_90a --out "$OUT" --cases "$cases" \
  --no-3d --no-eager > "$OUT/bench.txt" 2>&1
grep -E "checks|^[a-z0-9_]+ +\|" "$OUT/bench.txt" | tail -40
OUT="$OUT" bash test/gpu/run_on_gpu.sh 'QuantizeKernels|GlobalScale' > "$OUT/tests.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Total Test" "$OUT/tests.log" | tail -5
SANITIZE_TESTS=FPxGpuQuantizeKernelTest OUT="$OUT" timeout "${SANITIZE_LIMIT_S:-200}" \
  bash test/gpu/sanitize.sh 2>&1 | tail -4
