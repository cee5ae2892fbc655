#!/usr/bin/env bash
# On the GPU machine: compute-sanitizer memcheck and racecheck on the cast
# kernels' GPU tests (sm_90a builds), after test/gpu/run_on_gpu.sh has built
# build-gpu (it is run here with a quick test when build-gpu is missing).
# Carry .deps and .art (as run_on_gpu.sh). Logs under $OUT.
#   bash test/gpu/sanitize.sh [gtest filter, default */0 = the sm_90a build]
# SANITIZE_TESTS: which test programs (default: every one of the quantize,
# block-quantize, global-scale/per-matrix, amax, dequantize and layout
# kernels); SANITIZE_TOOLS (default memcheck racecheck); SANITIZE_TIMEOUT_S;
# FPX_GPU_CASES (a substring of case names: the quantize test runs only
# those cases, e.g. "cols_blocked").
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
# build-gpu as run_on_gpu.sh configures it, brought up to date (a warm
# machine may keep an older build)
if [ -d build-gpu ]; then
  ninja -C build-gpu > "$OUT/sanitize-build.log" 2>&1 || { tail -20 "$OUT/sanitize-build.log"; exit 1; }
else
  bash test/gpu/run_on_gpu.sh "Gpu.AddOneOnTwoStreams" > "$OUT/sanitize-build.log" 2>&1
fi
export FPX_GPU_ARTIFACTS="$PWD/.art/gpu"
filter="${1:-*/0}"   # parameter 0: the sm_90a build
status=0
limit=${SANITIZE_TIMEOUT_S:-150}
tests=${SANITIZE_TESTS:-FPxGpuBlockQuantizeKernelTest FPxGpuQuantizeKernelTest \
  FPxGpuGlobalScaleKernelTest FPxGpuAmaxKernelTest FPxGpuDequantizeKernelTest FPxGpuLayoutKernelTest}
for t in $tests; do
  exe=$(find build-gpu -name "$t" -type f -perm -u+x | head -1)
  if [ -z "$exe" ]; then echo "$t: no such test program in build-gpu"; status=1; continue; fi
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    log="$OUT/sanitize-$t-$tool.log"
    timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$exe" --gtest_filter="$filter" > "$log" 2>&1
    rc=$?
    echo "$t $tool: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    [ $rc -eq 0 ] || status=1
  done
done
exit $status
