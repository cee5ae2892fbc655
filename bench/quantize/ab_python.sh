#!/usr/bin/env bash
# One device call comparing two kernel bundles A and B through the Python
# package: bench_python_amax.py with FPX_KERNEL_DIR=A, B, B, A (drift on the
# machine shows), each run's lines in $OUT/abN-NAME.txt. Carry .deps and the
# two bundle directories (python-bindings/tools/build_bundle.py --out DIR).
#   bash bench/quantize/ab_python.sh DIR_A DIR_B [bench_python_amax.py options]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
a=$(realpath "$1") b=$(realpath "$2")
shift 2
FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
  > "$OUT/pip.log" 2>&1 || { tail -20 "$OUT/pip.log"; exit 1; }
i=0
status=0
for dir in "$a" "$b" "$b" "$a"; do
  i=$((i + 1))
  log="$OUT/ab$i-$(basename "$dir").txt"
  (cd bench/quantize && FPX_KERNEL_DIR="$dir" python3 bench_python_amax.py --no-compile "$@") > "$log" 2>&1 \
    || status=1
  echo "=== $(basename "$log")"
  grep -E "copy|amax given|FAIL|Error" "$log"
done
exit $status
