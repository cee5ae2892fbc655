// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_80" | FileCheck %s
// RUN: fpx-opt %s -fpx-convert-to-gpu="chip=sm_100a" | FileCheck %s

// The row casts' launch shapes were measured on Hopper (two tiles a CTA at
// four CTAs an SM for NVFP4 under rn and MXFP4 + rs, five CTAs before); on
// other targets those register bounds make them spill, so they keep one
// tile a CTA and ptxas's choice of registers until measured there.
// CHECK-LABEL: gpu.func @mxfp4_rs_quantize0(
// CHECK-SAME: grid = ["cdiv(arg0_0*arg0_1, 8192)", "1", "1"]
// (no nvvm.minctasm: the attributes end at nvvm.maxntid)
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>} {
func.func @mxfp4_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}

// The bf16 MXFP8 column cast keeps one kernel (128x128 tiles, three CTAs an
// SM): the narrow tile for small casts was measured on Hopper only.
// CHECK-LABEL: gpu.func @experts_quantize_t0(
// CHECK-SAME: grid = ["cdiv(arg0_1, 128)", "cdiv(arg0_2, 128)", "arg0_0"]
// CHECK-SAME: nvvm.minctasm = 3 : i32
// CHECK-NOT: quantize_tn
func.func @experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [32, 1], rule = rceil, scale = f8E8M0FNU>, transposed}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}
