#!/usr/bin/env bash
# One device call (about 4 min on an H100): fpx.swizzle_scales checked and
# timed. Carry .deps and .art/gpu (build/gpu-artifacts); for each variant V
# to time beside the tree, .art/kernelsV (a core bundle built from that
# variant's tree: python-bindings/tools/build_bundle.py --set core
# --targets sm_90a --out .art/kernelsV --strict). For a patch of
# experiments/: git apply it, ninja -C build, build .art/kernelsV and
# .art/gpu (cp -r build/gpu-artifacts .art/gpu: the GPU test and
# sanitizers then check the variant), git checkout the patched files and
# rebuild (ninja -C build; the tree's bundle is build/python-bindings/kernels,
# carried as .art/kernels).
#   bash bench/quantize/swizzle_session.sh [V ...]
# The layout kernels' GPU test (sm_90a and sm_80), memcheck and racecheck on
# it, the Python swizzle tests, bench_swizzle.py on the tree's bundle and on
# each variant's (first in FPX_KERNEL_DIR), and profile_python_swizzle.py.
source "$(dirname "$0")/session_env.sh"
OUT="$OUT" bash bench/quantize/layout_session.sh
exe=$(find build-gpu -name FPxGpuLayoutKernelTest -type f -perm -u+x | head -1)
FPX_GPU_ARTIFACTS="$root/.art/gpu" timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 \
  "$exe" --gtest_filter='*/0' > "$OUT/racecheck-layout.log" 2>&1
echo "racecheck (layout kernels, sm_90a): exit $?; $(grep -E 'RACECHECK SUMMARY|PASSED|FAILED' "$OUT/racecheck-layout.log" | tr '\n' ' ')"
timeout 120 python3 -m pytest -q -p no:cacheprovider python-bindings/tests/test_gpu.py -k swizzle \
  > "$OUT/pytest-swizzle.log" 2>&1
echo "pytest -k swizzle: $(tail -1 "$OUT/pytest-swizzle.log")"
for v in tree "$@"; do
  dir="$root/.art/kernels"  # the tree's bundle (cp -r build/python-bindings/kernels .art/kernels)
  [ "$v" = tree ] || dir="$root/.art/kernels$v"
  echo "== bench_swizzle.py, bundle $v"
  (cd /tmp && FPX_KERNEL_DIR="$dir" timeout 150 python3 "$root/bench/quantize/bench_swizzle.py") 2>&1 \
    | grep -vi warn | tee "$OUT/bench-swizzle-$v.txt"
done
(cd bench/quantize && timeout 60 python3 profile_python_swizzle.py) > "$OUT/profile-swizzle.txt" 2>&1
head -9 "$OUT/profile-swizzle.txt"
