#!/usr/bin/env bash
# One device call: executed SASS instructions per opcode (whole kernel, all
# threads) and the issue/pipe figures of the fpxc cast kernels of the named
# bench artifacts at 16384x8192 bf16, to see where an issue-bound cast's
# instructions go. Carry .art/sm_90a and .deps (the package is pip-installed
# here when .art/pyfpx is absent).
#   bash bench/quantize/ncu_opcodes.sh stem [stem ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
if [ ! -d .art/pyfpx ]; then
  FPX_DEPS_INCLUDE="$PWD/.deps" python3 -m pip install -q --no-build-isolation ./python-bindings \
    > "$OUT/pip.log" 2>&1 || { tail -20 "$OUT/pip.log"; exit 1; }
fi
for stem in "$@"; do
  ncu --clock-control none --kernel-name "regex:^${stem}_quantize" --launch-skip 1 --launch-count 1 \
    --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
    --print-metric-instances details \
    python3 bench/quantize/profile_kernel.py --artifact ".art/sm_90a/$stem.json" \
      --shape 16384,8192 --reps 2 > "$OUT/ncu-opcodes-$stem.txt" 2>&1
  grep -vE "^==PROF==|^ran " "$OUT/ncu-opcodes-$stem.txt" | sed "s/^/$stem: /" | tail -60
done
