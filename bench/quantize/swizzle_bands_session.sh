#!/usr/bin/env bash
# One device call (about 3 min on an H100): the blocked swizzle by bands
# (experiments/swizzle-bands.patch) checked and timed. Build on the build
# machine first, with the patch applied:
#   git apply bench/quantize/experiments/swizzle-bands.patch && ninja -C build
#   rm -rf .art/gpuQ && cp -r build/gpu-artifacts .art/gpuQ
#   python3 python-bindings/tools/build_bundle.py --set core --targets sm_90a \
#       --out .art/kernelsQ --strict
# (then git checkout the patched files, or adopt them). Carry .deps, .art/gpuQ
# and .art/kernelsQ. Runs the layout kernels' GPU test on .art/gpuQ (sm_90a
# and sm_80), memcheck on it, the Python swizzle tests and bench_swizzle.py
# with the variant's bundle first in FPX_KERNEL_DIR.
source "$(dirname "$0")/session_env.sh"
OUT="$OUT/ctest" FPX_GPU_JOBS=2 timeout 200 bash -c \
  'rm -rf .art/gpu && cp -r .art/gpuQ .art/gpu && bash test/gpu/run_on_gpu.sh "Targets/LayoutKernels"' \
  > "$OUT/ctest.out" 2>&1
echo "ctest LayoutKernels (variant): $(grep -E 'tests passed' "$OUT/ctest/ctest-gpu.log" | tail -1)"
grep -E 'Failure|got 0x' "$OUT/ctest/ctest-gpu.log" | head -10
exe=$(find build-gpu -name FPxGpuLayoutKernelTest -type f -perm -u+x | head -1)
FPX_GPU_ARTIFACTS="$PWD/.art/gpu" timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 \
  "$exe" --gtest_filter='*/0' > "$OUT/memcheck-layout.log" 2>&1
echo "memcheck: exit $?; $(grep -E 'ERROR SUMMARY' "$OUT/memcheck-layout.log")"
export FPX_KERNEL_DIR="$root/.art/kernelsQ"
timeout 120 python3 -m pytest -q -p no:cacheprovider python-bindings/tests/test_gpu.py -k swizzle \
  > "$OUT/pytest-swizzle.log" 2>&1
echo "pytest -k swizzle (variant bundle): $(tail -1 "$OUT/pytest-swizzle.log")"
(cd /tmp && timeout 200 python3 "$root/bench/quantize/bench_swizzle.py") 2>&1 \
  | grep -vi warn | tee "$OUT/bench-swizzle.txt"
