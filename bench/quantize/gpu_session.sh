#!/usr/bin/env bash
# One device call of a tuning session: the GPU tests named by $1 (ctest
# regex, default all), then the cast benchmark for cases $2 (default all;
# extra bench_quantize.py flags in $BENCH_FLAGS), then per-kernel SASS
# instruction counts of the bench cubins. Carry .deps and .art.
#   bash bench/quantize/gpu_session.sh [test-regex] [cases]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
bash test/gpu/run_on_gpu.sh "${1:-}" > "$OUT/tests.log" 2>&1
grep -E 'tests passed|Failed|\*\*\*' "$OUT/tests.log" | tail -20
# the package: prebuilt in .art/pyfpx (build_pyfpx.sh), else built here
fpx=()
if [ -d .art/pyfpx ]; then
  fpx=(--fpx-path .art/pyfpx)
else
  FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
    > "$OUT/pip.log" 2>&1 || tail -20 "$OUT/pip.log"
fi
python3 bench/quantize/bench_quantize.py --artifacts .art/sm_90a "${fpx[@]}" \
  --out "$OUT" ${2:+--cases "$2"} ${BENCH_FLAGS:-} > "$OUT/bench.txt" 2>&1
grep -vE '^\s*$' "$OUT/bench.txt" | tail -60
mkdir -p "$OUT/sass"
for c in .art/sm_90a/*.cubin; do
  cuobjdump -sass "$c" > "$OUT/sass/$(basename "$c" .cubin).sass" 2>/dev/null
  n=$(cuobjdump -sass "$c" 2>/dev/null | grep -cE '^\s+/\*[0-9a-f]{4}\*/')
  echo "sass $(basename "$c" .cubin) $n"
done | tee "$OUT/sass-counts.txt"
# few files come back from the device: the logs travel as one archive
(cd "$OUT" && tar czf logs.tgz cmake.log build.log tests.log sass-counts.txt sass $(ls pip.log 2>/dev/null) &&
  rm -rf cmake.log build.log tests.log sass-counts.txt sass pip.log)
