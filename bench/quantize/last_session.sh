#!/usr/bin/env bash
# One device call (2026-11-27, second session), steps in order of need, each
# under its own limit so that the call returns: the Python GPU suite on the
# full bundle (.art/kernels-full.tar.xz), the fp8 128x1 column cast beside its
# compiled peer, check_cols_gpu.py over the bench and GPU-test column
# artifacts, then compute-sanitizer racecheck on the global-scale and
# quantize tests. Carry .deps and .art.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
root=$PWD
OUT="$OUT" timeout 230 bash test/gpu/full_check.sh python | tail -3
source bench/quantize/ensure_fpx.sh
timeout 100 python3 bench/quantize/bench_quantize.py --artifacts .art/sm_90a --out "$OUT/bench" \
  --cases fp8_128x1_cols,mxfp8_e4m3_cols --no-3d --no-eager > "$OUT/bench.txt" 2>&1
grep -E "checks|^[a-z0-9_]+ +\|" "$OUT/bench.txt" | tail -8
mkdir -p /tmp/cols && cp .art/sm_90a/*.json .art/sm_90a/*.ptx .art/sm_90a/*.cubin /tmp/cols/ 2>/dev/null
cp .art/gpu/sm_90a/q_*cols*.json .art/gpu/sm_90a/q_*cols*.ptx /tmp/cols/
(cd /tmp && timeout 60 python3 "$root/bench/quantize/check_cols_gpu.py" --artifacts /tmp/cols) \
  > "$OUT/check-cols.txt" 2>&1
grep -E "FAIL|failing" "$OUT/check-cols.txt" | tail -4
SANITIZE_TOOLS=racecheck SANITIZE_TIMEOUT_S=110 \
  SANITIZE_TESTS="FPxGpuGlobalScaleKernelTest FPxGpuQuantizeKernelTest" OUT="$OUT" \
  bash test/gpu/sanitize.sh 2>&1 | tail -3
