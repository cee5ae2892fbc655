// RUN: fpx-opt %s | fpx-opt | FileCheck %s
// XFAIL: *

// KNOWN BUG: fpx.scaled_matmul with rhs scales but no lhs scales (what
// fpx-fuse-dequant-matmul produces) does not parse in its custom form: the
// optional `, type($lhs_scales)` group of the assembly format swallows the rhs
// type ("number of operands and types do not match: got 0 operands and 1
// types"). Remove the XFAIL line when the assembly format is fixed.

// CHECK-LABEL: func.func @scaled_matmul_rhs_scales_only
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xbf16>, %[[W:.*]]: tensor<256x32xi8>, %[[S:.*]]: tensor<256x4xf8E4M3FN>)
// CHECK: fpx.scaled_matmul %[[A]], %[[W]] scales(%[[S]])
// CHECK-SAME: : tensor<?x64xbf16>, tensor<256x32xi8>, tensor<256x4xf8E4M3FN> -> tensor<?x256xf32>
func.func @scaled_matmul_rhs_scales_only(%a: tensor<?x64xbf16>, %w: tensor<256x32xi8>, %s: tensor<256x4xf8E4M3FN>) -> tensor<?x256xf32> {
  %c = fpx.scaled_matmul %a, %w scales(%s) {
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x64xbf16>, tensor<256x32xi8>, tensor<256x4xf8E4M3FN> -> tensor<?x256xf32>
  return %c : tensor<?x256xf32>
}
