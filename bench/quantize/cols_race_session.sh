#!/usr/bin/env bash
# One device call: check_cols_gpu.py over the bench and GPU-test column
# artifacts, then compute-sanitizer racecheck on the quantize GPU test's
# column cases only (FPX_GPU_CASES=cols; their kernels, names containing
# "cols", instrumented): the whole test under racecheck does not finish in
# two minutes, nor did it with only the column kernels instrumented (the
# other cases' CPU oracle runs under the sanitizer too). Carry .deps and .art.
source "$(dirname "$0")/session_env.sh"
mkdir -p /tmp/cols && cp .art/sm_90a/*.json .art/sm_90a/*.ptx .art/sm_90a/*.cubin /tmp/cols/
cp .art/gpu/sm_90a/q_*cols*.json .art/gpu/sm_90a/q_*cols*.ptx /tmp/cols/
(cd /tmp && timeout 90 python3 "$root/bench/quantize/check_cols_gpu.py" --artifacts /tmp/cols) \
  > "$OUT/check-cols.txt" 2>&1
echo "check_cols_gpu: exit $?; $(grep -c PASS "$OUT/check-cols.txt") PASS; $(tail -1 "$OUT/check-cols.txt")"
[ -d build-gpu ] || bash test/gpu/run_on_gpu.sh "Gpu.AddOneOnTwoStreams" > "$OUT/build.log" 2>&1
ninja -C build-gpu > /dev/null 2>&1
exe=$(find build-gpu -name FPxGpuQuantizeKernelTest -type f -perm -u+x | head -1)
FPX_GPU_CASES=${FPX_GPU_CASES:-cols} FPX_GPU_ARTIFACTS="$PWD/.art/gpu" timeout "${RACE_LIMIT_S:-300}" compute-sanitizer --tool racecheck \
  --kernel-name kns=cols --error-exitcode 3 "$exe" --gtest_filter='*/0' > "$OUT/racecheck-cols.log" 2>&1
echo "racecheck (column kernels): exit $?; $(grep -E 'RACECHECK SUMMARY|ran [0-9]+ of|PASSED|FAILED' "$OUT/racecheck-cols.log" | tr '\n' ' ')"
