#!/usr/bin/env bash
# Builds the Python package's source distribution for GPU machines without
# LLVM/MLIR: dist/fpxc-<version>.tar.gz holds the package with the kernel
# bundle this build's fpxc compiled (fpxc/kernels/sm_90a, sm_100a), the
# extension's, runtime's and numerics' sources and the header-only deps
# (nlohmann/json, xxHash). On the GPU machine (CUDA headers, cmake, ninja,
# nanobind, torch; no network needed):
#   pip install --no-build-isolation fpxc-<version>.tar.gz
#
#   scripts/dist.sh           configure build/ if needed, bring fpxc and the bundle up to date, write dist/
#   scripts/dist.sh --check   also install it into a fresh venv (--system-site-packages for torch)
#                             outside the checkout, list the bundle the installed package finds
#                             and quantize on the CPU through it (about 2 min of CPU, most of it
#                             the extension's compile)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
py=${PYTHON:-python3}
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
t0=$SECONDS
ninja -C build fpx-bundle
mkdir -p dist
# setup.py's sdist command adds runtime/, numerics/, the deps and the bundle.
(cd python-bindings && $py setup.py -q sdist --dist-dir "$root/dist" >/dev/null)
version=$(sed -n 's/^project(fpxc VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
sdist="$root/dist/fpxc-$version.tar.gz"
echo "$sdist: $(du -h "$sdist" | cut -f1), $(tar -tzf "$sdist" | grep -c '\.ptx$') PTX files ($((SECONDS - t0)) s)"
if [ "${1:-}" = --check ]; then
  tmp=$(mktemp -d /tmp/fpxc-dist-check.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  # --without-pip: the environment's own pip and setuptools (a venv's seeded
  # setuptools may predate bdist_wheel). From outside the checkout, so that
  # nothing of it is used but the file.
  $py -m venv --system-site-packages --without-pip "$tmp/venv"
  t1=$SECONDS
  (cd "$tmp" && "$tmp/venv/bin/python" -m pip install -q --no-build-isolation "$sdist")
  echo "installed into a fresh venv in $((SECONDS - t1)) s"
  (cd "$tmp" && unset FPX_KERNEL_DIR && "$tmp/venv/bin/python" - <<'PY'
import collections, pathlib, sys
import fpxc
from fpxc import bundle
pkg = pathlib.Path(fpxc.__file__).parent
entries = bundle.entries()
by_target = collections.Counter(e.target for e in entries)
inside = all(pathlib.Path(e.path).is_relative_to(pkg / "kernels") for e in entries)
import torch
q = fpxc.quantize(torch.randn(4, 64), format="mxfp8_e4m3")  # the extension loads and serves
print(f"installed {pkg}: bundle entries {dict(by_target)}, all in the package: {inside}; "
      f"quantize on the CPU: {tuple(q.data.shape)}")
sys.exit(0 if inside and {"sm_90a", "sm_100a"} <= set(by_target) else 1)
PY
  )
fi
