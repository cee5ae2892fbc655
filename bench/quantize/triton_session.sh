#!/usr/bin/env bash
# One device call: fpxc's MXFP8 and fp8 block casts beside the hand-written
# Triton peers (bench/quantize/triton_peers.py), the torch.compile'd and
# eager references, in one run of bench_quantize.py. A quick pass on small
# shapes first, so that a Triton kernel that does not compile costs seconds.
#   carry: .deps .art/sm_90a        usage: bash bench/quantize/triton_session.sh
set -uo pipefail
: "${OUT:=/tmp/out}"
mkdir -p "$OUT"
source bench/quantize/ensure_fpx.sh
CASES=${CASES:-mxfp8_e4m3_floor,mxfp8_e4m3_cols,mxfp8_e4m3_experts,mxfp8_e4m3_rceil,fp8_1x128,fp8_128x128,fp8_per_row,fp8_per_tensor,mxfp4_e2m1,nvfp4,nvfp4_cast,nvfp4_rs,nvfp4_rs_cast}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
python3 bench/quantize/bench_quantize.py --artifacts .art/sm_90a --quick --cases "$CASES" \
  --no-compile --no-eager --out "$OUT/quick" > "$OUT/quick.log" 2>&1
rc=$?
grep -E "Triton|error|Error" "$OUT/quick.log" | head -30
[ $rc -eq 0 ] || { tail -30 "$OUT/quick.log"; exit $rc; }
python3 bench/quantize/bench_quantize.py --artifacts .art/sm_90a --cases "$CASES" \
  --out "$OUT/bench" "$@" 2>&1 | tee "$OUT/bench.log" | tail -60
