#!/usr/bin/env bash
# On the GPU machine: every C++ GPU test (ctest -L gpu, four at a time; one
# at a time took 589 s on an H100), the Python package's GPU suite on the
# full AOT bundle (about 3 min with its install) and compute-sanitizer on the
# cast kernels (about 2.5 min).
# They do not fit one 10-minute device call together: name the steps.
#   bash test/gpu/full_check.sh [ctest] [python] [sanitize]   (default: all three)
# Carry .deps, .art/gpu and, for python, .art/kernels (cp -r
# build/python-bindings/kernels .art/kernels: the bundle the package ships)
# and .art/kernels-full.tar.xz (python-bindings/tools/build_bundle.py, then
#  tar -cJf .art/kernels-full.tar.xz -C python-bindings kernels-full).
# A summary line a step and its logs come back under $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
work=$(mktemp -d /tmp/fpx-check.XXXXXX)
mkdir -p "$OUT"
{
status=0
for s in ${*:-ctest python sanitize}; do
  t0=$SECONDS
  case "$s" in
    ctest)
      OUT="$work/ctest" bash test/gpu/run_on_gpu.sh > "$work/ctest.out" 2>&1 || status=1
      echo "ctest: $((SECONDS - t0)) s; $(grep -E 'tests passed' "$work/ctest/ctest-gpu.log" | tail -1)"
      grep -E '\*\*\*(Failed|Exception|Timeout)' "$work/ctest/ctest-gpu.log"
      cp "$work/ctest/ctest-gpu.log" "$work/ctest/gpu.txt" "$OUT/" ;;
    python)
      [ -f .art/kernels-full.tar.xz ] && tar -xJf .art/kernels-full.tar.xz -C python-bindings
      OUT="$work/py" bash python-bindings/tools/run_gpu.sh install gpu > "$work/py.out" 2>&1 || status=1
      echo "python: $((SECONDS - t0)) s; $(tail -1 "$work/py/pytest-gpu.log")"
      cp "$work/py/pytest-gpu.log" "$work/py/env.txt" "$OUT/" ;;
    sanitize)
      OUT="$work/san" bash test/gpu/sanitize.sh > "$work/san.out" 2>&1 || status=1
      echo "sanitize: $((SECONDS - t0)) s"
      cat "$work/san.out"
      cp "$work/san.out" "$OUT/sanitize-summary.txt" ;;
    *) echo "full_check.sh: unknown step $s" >&2; exit 2 ;;
  esac
done
exit $status
} 2>&1 | tee -a "$OUT/summary.txt"
exit "${PIPESTATUS[0]}"
