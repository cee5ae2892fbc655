#!/usr/bin/env bash
# One device call that checks the package and the kernels on the GPU machine
# and measures them: the C++ GPU tests (ctest -L gpu; $CPP_TESTS: a ctest
# regex), compute-sanitizer on them (test/gpu/sanitize.sh; only when asked),
# the package's install and GPU tests, the Python host times
# (profile_python_quantize.py for nvfp4 and mxfp8_e4m3), bench_python_amax.py
# ($AMAX_ARGS: its arguments) and bench_dequantize.py. Logs under $OUT (few
# files travel back: the long logs as one archive).
# Carry .deps, .art/gpu, .art/kernels and python-bindings/kernels-full (see run_gpu.sh).
#   python-bindings/tools/gpu_check.sh [cpp] [sanitize] [py] [profile] [amax] [dequant]
#   (default: all but sanitize)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT/logs"
steps=" ${*:-cpp py profile amax dequant} "
status=0  # nonzero when a test step fails (the benchmarks only print)
if [[ $steps == *" cpp "* ]]; then
  OUT="$OUT/logs" bash test/gpu/run_on_gpu.sh "${CPP_TESTS:-}" > "$OUT/logs/cpp-gpu-tests.log" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)" "$OUT/logs/cpp-gpu-tests.log" | tail -12
  grep -q "100% tests passed" "$OUT/logs/cpp-gpu-tests.log" || status=1
fi
if [[ $steps == *" sanitize "* ]]; then
  OUT="$OUT/logs" bash test/gpu/sanitize.sh || status=1
fi
if [[ $steps == *" py "* ]]; then
  OUT="$OUT/logs" bash python-bindings/tools/run_gpu.sh install gpu > "$OUT/logs/run_gpu.out" 2>&1 \
    || { status=1; tail -20 "$OUT/logs/run_gpu.out"; }
  tail -3 "$OUT/logs/pytest-gpu.log" 2>/dev/null
  grep -E "^(FAILED|ERROR)" "$OUT/logs/pytest-gpu.log" 2>/dev/null | head -20
else
  [ -n "${FPX_BUNDLE_DIR:-}" ] || [ ! -d .art/kernels ] || export FPX_BUNDLE_DIR="$PWD/.art/kernels"
  FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
    > "$OUT/logs/pip.log" 2>&1 || { tail -20 "$OUT/logs/pip.log"; exit 1; }
fi
export FPX_KERNEL_DIR="$PWD/python-bindings/kernels-full"
if [[ $steps == *" profile "* ]]; then
  for f in nvfp4 mxfp8_e4m3; do
    python3 bench/quantize/profile_python_quantize.py --format "$f" > "$OUT/profile-$f.log" 2>&1
    head -10 "$OUT/profile-$f.log"
  done
fi
if [[ $steps == *" amax "* ]]; then
  python3 bench/quantize/bench_python_amax.py ${AMAX_ARGS:-} > "$OUT/bench-python-amax.log" 2>&1
  cat "$OUT/bench-python-amax.log"
fi
if [[ $steps == *" dequant "* ]]; then
  python3 bench/quantize/bench_dequantize.py > "$OUT/bench-dequantize.log" 2>&1
  tail -60 "$OUT/bench-dequantize.log"
  # expert batches: NVFP4 with a global scale per matrix (one launch)
  python3 bench/quantize/bench_dequantize.py --formats nvfp4,mxfp8_e4m3,mxfp4 \
    --shapes 8x8192x5120,64x2048x7168 > "$OUT/bench-dequantize-batches.log" 2>&1
  tail -8 "$OUT/bench-dequantize-batches.log"
fi
(cd "$OUT" && tar czf logs.tgz logs && rm -rf logs)
exit $status
