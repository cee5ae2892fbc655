// RUN: fpx-opt %s -fpx-convert-to-gpu | FileCheck %s --check-prefix=NEUTRAL
// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=SM90
// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_80" | FileCheck %s --check-prefix=NEUTRAL
// RUN: not fpx-opt %s -fpx-convert-to-gpu="chip=sm_42" 2>&1 | FileCheck %s --check-prefix=BADCHIP

// MXFP4 with stochastic rounding from bf16: the fast branch (finite block)
// clamps |x| to 6 * scale on the bf16 pairs, then converts in_range (no
// per-value clamp). Without a chip (or on sm_80) the magnitudes are masked
// and clamped by min.NaN.bf16x2 (arith.minimumf); on chips whose table
// entry has Bf16x2Math (sm_90 on) max/min.xorsign.abs.bf16x2 take the
// magnitudes themselves, for the block maximum and for the clamp.

// NEUTRAL-LABEL: gpu.func @mxfp4_rs_quantize0(
// NEUTRAL-NOT: xorsign
// NEUTRAL: llvm.intr.maximum({{.*}}) : (vector<2xbf16>, vector<2xbf16>) -> vector<2xbf16>
// NEUTRAL: scf.if
// NEUTRAL: arith.minimumf {{.*}} : vector<2xbf16>
// NEUTRAL: fpx.convert {{.*}} rbits({{.*}}) {format = #fpx.format<e2m1fn>, in_range, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i16
// NEUTRAL: } else {
// NEUTRAL-NOT: in_range
// NEUTRAL: fpx.convert {{.*}} rbits({{.*}}) {format = #fpx.format<e2m1fn>, rounding = #fpx.rounding<rs>} : vector<4xf32> -> i16

// SM90-LABEL: gpu.func @mxfp4_rs_quantize0(
// SM90-COUNT-3: llvm.inline_asm "max.NaN.xorsign.abs.bf16x2 $0, $1, $2;"
// SM90: scf.if
// SM90-COUNT-4: llvm.inline_asm "min.xorsign.abs.bf16x2 $0, $1, $2;"
// SM90: fpx.convert {{.*}} in_range, rounding = #fpx.rounding<rs>

// BADCHIP: error: unknown target 'sm_42'
func.func @mxfp4_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
