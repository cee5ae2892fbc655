#!/usr/bin/env bash
# Configures and builds fpxc (compiler, runtime, tests) in Release into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
ninja -C build
