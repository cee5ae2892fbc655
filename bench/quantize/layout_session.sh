#!/usr/bin/env bash
# One device call (about 3 min on an H100): the layout kernels' GPU test
# (sm_90a and sm_80; the grouped swizzle among them), then compute-sanitizer
# memcheck on its sm_90a instance. Carry .deps and .art/gpu.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
t0=$SECONDS
OUT="$OUT/ctest" FPX_GPU_JOBS=2 timeout 200 bash test/gpu/run_on_gpu.sh "Targets/LayoutKernels" \
  > "$OUT/ctest.out" 2>&1
echo "ctest LayoutKernels: $((SECONDS - t0)) s; $(grep -E 'tests passed' "$OUT/ctest/ctest-gpu.log" | tail -1)"
grep -E '\*\*\*(Failed|Exception|Timeout)|Failure|got 0x' "$OUT/ctest/ctest-gpu.log" | head -20
exe=$(find build-gpu -name FPxGpuLayoutKernelTest -type f -perm -u+x | head -1)
FPX_GPU_ARTIFACTS="$PWD/.art/gpu" timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 \
  "$exe" --gtest_filter='*/0' > "$OUT/memcheck-layout.log" 2>&1
echo "memcheck (layout kernels, sm_90a): exit $?; $(grep -E 'ERROR SUMMARY|PASSED|FAILED' "$OUT/memcheck-layout.log" | tr '\n' ' ')"
