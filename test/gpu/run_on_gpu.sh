#!/usr/bin/env bash
# Runs on the GPU machine (no MLIR there): builds libfpxrt, the numerics core
# and the GPU tests, then runs them on artifacts compiled on a CPU machine.
# Expects, carried with the checkout:
#   .deps/  nlohmann/json.hpp, xxhash.h, googletest/ (header-only deps + gtest sources)
#   .art/gpu/<target>/*.{json,ptx}  (build/gpu-artifacts from the CPU build)
# Usage: test/gpu/run_on_gpu.sh [ctest regex]     (results under $OUT if set)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFPX_BUILD_COMPILER=OFF \
  -DFPX_DEPS_INCLUDE="$PWD/.deps" -DFPX_GTEST_SRC="$PWD/.deps/googletest" > "$OUT/cmake.log" 2>&1 \
  || { tail -30 "$OUT/cmake.log"; exit 1; }
ninja -C build-gpu > "$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
export FPX_GPU_ARTIFACTS="$PWD/.art/gpu"
# Four at a time (FPX_GPU_JOBS): the longest tests spend their time in the
# CPU numerics core (the GPU machine has 16 cores), and one at a time the
# whole set took 589 s of a 600 s device call on an H100.
ctest --test-dir build-gpu -L 'gpu' ${1:+-R "$1"} -j"${FPX_GPU_JOBS:-4}" --output-on-failure --timeout 300 2>&1 | tee "$OUT/ctest-gpu.log" | tail -60
