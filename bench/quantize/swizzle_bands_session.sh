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
# the variant's GPU-test artifacts where the layout test reads them
rm -rf .art/gpu && cp -r .art/gpuQ .art/gpu && OUT="$OUT" bash bench/quantize/layout_session.sh
export FPX_KERNEL_DIR="$root/.art/kernelsQ"
timeout 120 python3 -m pytest -q -p no:cacheprovider python-bindings/tests/test_gpu.py -k swizzle \
  > "$OUT/pytest-swizzle.log" 2>&1
echo "pytest -k swizzle (variant bundle): $(tail -1 "$OUT/pytest-swizzle.log")"
(cd /tmp && timeout 200 python3 "$root/bench/quantize/bench_swizzle.py") 2>&1 \
  | grep -vi warn | tee "$OUT/bench-swizzle.txt"
