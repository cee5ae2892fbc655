#!/usr/bin/env bash
# Builds the fpxc Python package (the nanobind extension fpxc._fpx plus the
# pure-Python files of python-bindings/fpxc) for one Python into a folder that
# bench_quantize.py imports with --fpx-path, without pip and without touching
# python-bindings/. Default: python3.12 (the GPU image's Python) into
# .art/pyfpx, so carrying .art carries the package with the artifacts.
#
#   bench/quantize/build_pyfpx.sh [--python PY] [--dest DIR]
#
# Needs cmake, ninja, the CUDA headers (cuda.h, nvrtc.h; CUDA_HOME or
# /usr/local/cuda), nlohmann/json.hpp and xxhash.h (installed, or a folder in
# FPX_DEPS_INCLUDE) and nanobind importable by PY. The extension dlopens the
# CUDA driver at run time, so it builds on a machine without a GPU.
set -eu
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py=python3.12
dest="$root/.art/pyfpx"
while [ $# -gt 0 ]; do
  case "$1" in
    --python) py="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    -h|--help) sed -n 2,13p "$0"; exit 0 ;;
    *) echo "build_pyfpx.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
pyexe="$("$py" -c 'import sys; print(sys.executable)' 2>/dev/null || true)"
if [ -z "$pyexe" ]; then   # pyenv: a version that is installed but not selected
  for cand in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"${py#python}"*/bin/"$py"; do
    [ -x "$cand" ] && pyexe="$cand" && break
  done
fi
[ -n "$pyexe" ] || { echo "build_pyfpx.sh: no $py" >&2; exit 2; }
# nanobind's CMake package does not depend on the Python version: take it from
# PY, else from python3.
nbdir="$("$pyexe" -m nanobind --cmake_dir 2>/dev/null || python3 -m nanobind --cmake_dir 2>/dev/null)" || {
  echo "build_pyfpx.sh: nanobind is importable neither by $pyexe nor by python3 (pip install nanobind)" >&2; exit 2; }
tag="$("$pyexe" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
build="${TMPDIR:-/tmp}/fpx-pybuild-$tag"
mkdir -p "$dest/fpxc"
extra=()
[ -n "${FPX_DEPS_INCLUDE:-}" ] && extra+=("-DFPX_DEPS_INCLUDE=$FPX_DEPS_INCLUDE")
cmake -S "$root/python-bindings" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$pyexe" -Dnanobind_DIR="$nbdir" \
  -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$dest/fpxc" "${extra[@]}" > "$build.log" 2>&1 || {
  tail -30 "$build.log" >&2; exit 1; }
cmake --build "$build" --target _fpx -j "$(nproc)" >> "$build.log" 2>&1 || {
  tail -30 "$build.log" >&2; exit 1; }
cp "$root"/python-bindings/fpxc/*.py "$dest/fpxc/"
# The kernel bundle the package ships: a build output of fpxc (ninja -C build fpx-bundle).
if [ -d "$root/build/python-bindings/kernels" ]; then
  rm -rf "$dest/fpxc/kernels" && cp -r "$root/build/python-bindings/kernels" "$dest/fpxc/kernels"
fi
git -C "$root" rev-parse HEAD > "$dest/COMMIT" 2>/dev/null || true
echo "fpx package for $tag in $dest/fpxc ($(ls "$dest"/fpxc/_fpx*.so))"
echo "use: python3 bench/quantize/bench_quantize.py --fpx-path $dest"
