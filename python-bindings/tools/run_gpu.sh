#!/usr/bin/env bash
# The fpx Python package on the GPU machine: install, GPU tests, the whole
# Python suite, the runtime benchmarks. Results under $OUT (else bench-results/).
#
#   python-bindings/tools/run_gpu.sh [install] [gpu] [all] [bench]   (default: all four)
#
# Needs, carried from the build machine (the GPU machine has no MLIR/fpxc):
#   .deps/                          nlohmann/, xxhash.h (FPX_DEPS_INCLUDE)
#   .art/kernels/                   the core bundle the package ships (cp -r
#                                   build/python-bindings/kernels .art/kernels), installed
#                                   into the package (FPX_BUNDLE_DIR); without it the package
#                                   has no kernels and the bundle tests fail
#   .art/gpu/                       build/gpu-artifacts (test_link.py's artifact)
#   python-bindings/kernels-full/   the full AOT bundle (python-bindings/tools/build_bundle.py);
#                                   without it only the core set is tested
# (Or install the source distribution instead: scripts/dist.sh here, then
#  pip install --no-build-isolation fpxc-*.tar.gz there; see README.md.)
# and on the machine: torch with CUDA, nanobind, setuptools, cmake, ninja, pytest.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench-results}"
mkdir -p "$OUT"
export FPX_DEPS_INCLUDE="${FPX_DEPS_INCLUDE:-$root/.deps}"
if [ -z "${FPX_BUNDLE_DIR:-}" ] && [ -d "$root/.art/kernels" ]; then
  export FPX_BUNDLE_DIR="$root/.art/kernels"
fi
if [ -d "$root/python-bindings/kernels-full" ]; then
  export FPX_KERNEL_DIR="$root/python-bindings/kernels-full${FPX_KERNEL_DIR:+:$FPX_KERNEL_DIR}"
fi
export FPX_CACHE_DIR="${FPX_CACHE_DIR:-$(mktemp -d /tmp/fpx-cache.XXXXXX)}"
steps="${*:-install gpu all bench}"
status=0
step() { # name, command...
  local name="$1"; shift
  echo "=== $name: $*" | tee -a "$OUT/run_gpu.log"
  local t0=$SECONDS
  "$@" > >(tee "$OUT/$name.log") 2>&1
  local rc=$?
  echo "=== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$OUT/run_gpu.log"
  [ $rc -eq 0 ] || status=1
  return $rc
}
{
  echo "commit $(git rev-parse HEAD 2>/dev/null)"; date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  echo "FPX_KERNEL_DIR=${FPX_KERNEL_DIR:-}"
  echo "FPX_BUNDLE_DIR=${FPX_BUNDLE_DIR:-}"
  ls python-bindings/kernels-full 2>/dev/null
} > "$OUT/env.txt"
cat "$OUT/env.txt"
# Run pytest from the repository root so `import fpxc` is the installed
# package (python-bindings/fpxc has no compiled extension on this machine).
for s in $steps; do
  case "$s" in
    install) step pip-install python3 -m pip install --no-build-isolation ./python-bindings || exit 1 ;;
    gpu) step pytest-gpu python3 -m pytest -m gpu -q -rs -p no:cacheprovider \
           --junitxml="$OUT/pytest-gpu.xml" python-bindings/tests ;;
    all) step pytest-all python3 -m pytest -q -rs -p no:cacheprovider -m "not gpu" \
           --junitxml="$OUT/pytest-all.xml" python-bindings/tests ;;
    bench) step bench-runtime python3 bench/python/bench_runtime.py --out "$OUT" ;;
    *) echo "run_gpu.sh: unknown step $s" >&2; exit 2 ;;
  esac
done
echo "results in $OUT (exit $status)"
exit $status
