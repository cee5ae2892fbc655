#!/usr/bin/env bash
# One device call (about 8 min on an H100): the checks that compiled here
# but had not run on a GPU. Carry .deps, .art/gpu (build/gpu-artifacts) and
# .art/sm_90a (build_artifacts.sh).
#  1. the layout kernels' GPU test and memcheck (layout_session.sh; the
#     shared grouped-swizzle check, expectGrouped);
#  2. the Python GPU test for unchecked group ends that go backwards;
#  3. the quantize GPU test's column cases alone (FPX_GPU_CASES=cols: it
#     says how many ran) and racecheck on them (cols_race_session.sh, with
#     check_cols_gpu.py over the bench's column artifacts first).
source "$(dirname "$0")/session_env.sh"
OUT="$OUT" bash bench/quantize/layout_session.sh
timeout 90 python3 -m pytest -q -p no:cacheprovider python-bindings/tests/test_gpu.py -k backwards \
  > "$OUT/pytest-backwards.log" 2>&1
echo "pytest -k backwards: $(tail -1 "$OUT/pytest-backwards.log")"
exe=$(find build-gpu -name FPxGpuQuantizeKernelTest -type f -perm -u+x | head -1)
FPX_GPU_CASES=cols FPX_GPU_ARTIFACTS="$root/.art/gpu" timeout 120 "$exe" --gtest_filter='*/0' \
  > "$OUT/quantize-cols.log" 2>&1
echo "quantize test, FPX_GPU_CASES=cols: exit $?; $(grep -E 'FPX_GPU_CASES=|PASSED|FAILED' "$OUT/quantize-cols.log" | tr '\n' ' ')"
FPX_GPU_CASES=no-such-case FPX_GPU_ARTIFACTS="$root/.art/gpu" timeout 60 "$exe" --gtest_filter='*/0' \
  > "$OUT/quantize-none.log" 2>&1
echo "quantize test, FPX_GPU_CASES=no-such-case (must fail): exit $?; $(grep -E 'FPX_GPU_CASES=|FAILED' "$OUT/quantize-none.log" | head -3 | tr '\n' ' ')"
OUT="$OUT" RACE_LIMIT_S=${RACE_LIMIT_S:-300} bash bench/quantize/cols_race_session.sh
