#!/usr/bin/env bash
# The main job: install what is missing, build fpxc (and with it the Python
# package's kernel bundle, build/python-bindings/kernels), compile every
# example spec in docs/examples to PTX (and a cubin through ptxas) for
# several targets, and run the compiled kernels where a GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
FPX_SKIP_PYTHON=1 scripts/install-deps.sh
scripts/build.sh
targets=${FPX_TARGETS:-"sm_80 sm_89 sm_90a sm_100a sm_120a"}
for t in $targets; do
  mkdir -p "out/examples/$t"
  for spec in docs/examples/*.mlir; do
    name=$(basename "$spec" .mlir)
    build/compiler/tools/fpxc compile "$spec" --target "$t" --cubin -o "out/examples/$t/$name"
  done
done
echo "Artifacts (NAME.json + NAME.ptx + NAME.cubin per target):"
find out/examples -name '*.json' | sort
echo "The Python package's kernel bundle (fpxc, core set): $(ls -d build/python-bindings/kernels/*/)"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU found: running the compiled kernels against the numerics core"
  FPX_GPU_ARTIFACTS="$PWD/build/gpu-artifacts" ctest --test-dir build -L gpu --output-on-failure
else
  echo "No GPU here: the kernels were compiled, not run (ctest -L gpu skips)."
fi
