#!/usr/bin/env bash
# One device call (about 4 min on an H100): the blocked swizzle by bands
# (experiments/swizzle-bands.patch) checked and timed, for one or more
# variants of it. Build on the build machine first, a variant V at a time:
#   git apply bench/quantize/experiments/swizzle-bands.patch && ninja -C build
#   rm -rf .art/gpuV && cp -r build/gpu-artifacts .art/gpuV
#   python3 python-bindings/tools/build_bundle.py --set core --targets sm_90a \
#       --out .art/kernelsV --strict
# Carry .deps, .art/gpuV (the first variant's only) and .art/kernelsV each.
#   bash bench/quantize/swizzle_bands_session.sh V [W ...]
# The first variant: the layout kernels' GPU test (sm_90a and sm_80),
# memcheck and racecheck on it, the Python swizzle tests on its bundle. Each
# variant: bench_swizzle.py with its bundle first in FPX_KERNEL_DIR ("tree":
# the committed bundle, the baseline).
source "$(dirname "$0")/session_env.sh"
first=${1:?name a variant}
# the variant's GPU-test artifacts where the layout test reads them
rm -rf .art/gpu && cp -r ".art/gpu$first" .art/gpu && OUT="$OUT" bash bench/quantize/layout_session.sh
exe=$(find build-gpu -name FPxGpuLayoutKernelTest -type f -perm -u+x | head -1)
FPX_GPU_ARTIFACTS="$root/.art/gpu" timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 \
  "$exe" --gtest_filter='*/0' > "$OUT/racecheck-layout.log" 2>&1
echo "racecheck (layout kernels, sm_90a): exit $?; $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' "$OUT/racecheck-layout.log" | tr '\n' ' ')"
FPX_KERNEL_DIR="$root/.art/kernels$first" timeout 120 python3 -m pytest -q -p no:cacheprovider \
  python-bindings/tests/test_gpu.py -k swizzle > "$OUT/pytest-swizzle.log" 2>&1
echo "pytest -k swizzle (bundle $first): $(tail -1 "$OUT/pytest-swizzle.log")"
for v in "$@"; do
  dir="$root/.art/kernels$v"
  [ "$v" = tree ] && dir="$root/python-bindings/fpx/kernels"  # the committed bundle
  echo "== bench_swizzle.py, bundle $v"
  (cd /tmp && FPX_KERNEL_DIR="$dir" timeout 150 python3 "$root/bench/quantize/bench_swizzle.py") 2>&1 \
    | grep -vi warn | tee "$OUT/bench-swizzle-$v.txt"
done
