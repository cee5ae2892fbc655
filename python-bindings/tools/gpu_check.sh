#!/usr/bin/env bash
# One device call that checks the package and the kernels on the GPU machine
# and measures the Python host times: the C++ GPU tests (ctest -L gpu), the
# package's install and GPU tests, then profile_python_quantize.py (nvfp4,
# mxfp8_e4m3) and bench_python_amax.py. Logs under $OUT (few files travel
# back: the long logs as one archive).
# Carry .deps, .art/gpu and python-bindings/kernels-full (see run_gpu.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/logs"
OUT="$OUT/logs" bash test/gpu/run_on_gpu.sh > "$OUT/logs/cpp-gpu-tests.log" 2>&1
grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)" "$OUT/logs/cpp-gpu-tests.log" | tail -12
OUT="$OUT/logs" bash python-bindings/tools/run_gpu.sh install gpu > /dev/null 2>&1
tail -3 "$OUT/logs/pytest-gpu.log"
grep -E "^(FAILED|ERROR)" "$OUT/logs/pytest-gpu.log" | head -20
export FPX_KERNEL_DIR="$PWD/python-bindings/kernels-full"
for f in nvfp4 mxfp8_e4m3; do
  python3 bench/quantize/profile_python_quantize.py --format "$f" > "$OUT/profile-$f.log" 2>&1
  head -9 "$OUT/profile-$f.log"
done
python3 bench/quantize/bench_python_amax.py > "$OUT/bench-python-amax.log" 2>&1
tail -12 "$OUT/bench-python-amax.log"
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
