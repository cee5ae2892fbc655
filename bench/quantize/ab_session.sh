#!/usr/bin/env bash
# One device call comparing artifact sets of the cast benchmark, A and B
# (e.g. the commit before a change and after), in the order A B B A so that
# drift on the machine shows (more sets: A B C C B A); then, optionally, the
# GPU tests (ctest regex $TESTS, "" = none) and Nsight Compute's per-opcode
# counts of stems $NCU on sets A and B. Carry .deps, .art (and .art/gpu for
# the tests).
# SHAPES_3D (e.g. 1x8192x5120,8x8192x5120) adds those expert shapes.
#   bash bench/quantize/ab_session.sh DIR_A DIR_B [DIR_C ...] cases
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
dirs=("${@:1:$#-1}")
cases=${!#}
a=${dirs[0]} b=${dirs[1]}
order=("${dirs[@]}")
for ((x = ${#dirs[@]} - 1; x >= 0; x--)); do order+=("${dirs[x]}"); done
FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
  > "$OUT/pip.log" 2>&1 || { tail -20 "$OUT/pip.log"; exit 1; }
i=0
status=0  # nonzero when a benchmark check or a GPU test fails
for dir in "${order[@]}"; do
  i=$((i + 1))
  python3 bench/quantize/bench_quantize.py --artifacts "$dir" --out "$OUT/ab$i" --cases "$cases" \
    ${SHAPES_3D:+--shapes-3d} ${SHAPES_3D:---no-3d} --no-compile --no-eager ${BENCH_FLAGS:-} > "$OUT/ab$i-$(basename "$dir").txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1  # a failed check or a load error
  echo "=== ab$i-$(basename "$dir").txt"  # (docs/results/tools/plot_ab.py reads these marks)
  grep -E "\] (fpxc |device-to-device|check .*(FAIL|ERROR))" "$OUT/ab$i-$(basename "$dir").txt" | cut -c11-
done
if [ -n "${TESTS-}" ]; then
  OUT="$OUT" bash test/gpu/run_on_gpu.sh "$TESTS" > "$OUT/tests.log" 2>&1
  grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)" "$OUT/tests.log" | tail -12
  grep -q "100% tests passed" "$OUT/tests.log" || status=1
fi
if [ -n "${NCU-}" ]; then
  for stem in $NCU; do
    for side in A B; do  # (A and B in the names: the two dirs may share a basename)
      if [ "$side" = A ]; then dir=$a; else dir=$b; fi
      log="$OUT/ncu-$stem-$side-$(basename "$dir").txt"
      ncu --clock-control none --kernel-name "regex:^${stem}_quantize" --launch-skip 1 --launch-count 1 \
        --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
        --print-metric-instances details \
        python3 bench/quantize/profile_kernel.py --artifact "$dir/$stem.json" \
          --shape 16384,8192 --reps 2 > "$log" 2>&1
      grep -E "inst_executed.sum|issue_active|dram__|duration" "$log" | sed "s/^/$stem $side $(basename "$dir"): /"
    done
  done
fi
exit $status
