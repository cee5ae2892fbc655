#!/usr/bin/env bash
# One device call (about 7 min on an H100): the Python package's GPU suite on
# the full bundle (every bundled entry against the CPU reference, the
# fallback an error), then racecheck on the quantize GPU test's column
# kernels (sm_90a). Carry .deps, .art/gpu and .art/kernels-full.tar.xz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
OUT="$OUT" timeout 280 bash test/gpu/full_check.sh python | tail -3
[ -d build-gpu ] || bash test/gpu/run_on_gpu.sh "Gpu.AddOneOnTwoStreams" > "$OUT/build.log" 2>&1
exe=$(find build-gpu -name FPxGpuQuantizeKernelTest -type f -perm -u+x | head -1)
FPX_GPU_ARTIFACTS="$PWD/.art/gpu" timeout "${RACE_LIMIT_S:-200}" compute-sanitizer --tool racecheck \
  --kernel-name kns=cols --error-exitcode 3 "$exe" --gtest_filter='*/0' > "$OUT/racecheck-cols.log" 2>&1
echo "racecheck (column kernels): exit $?; $(grep -E 'RACECHECK SUMMARY|tests? ran|PASSED|FAILED' "$OUT/racecheck-cols.log" | tr '\n' ' ')"
