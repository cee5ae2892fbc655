// RUN: fpx-opt %s -split-input-file | fpx-opt -split-input-file | FileCheck %s

// fpx.scaled_matmul without lhs scales (what fpx-fuse-dequant-matmul
// produces) and without any scales prints in a form that parses back (each
// operand carries its type, so optional scales cannot swallow another's).

// CHECK-LABEL: func.func @scaled_matmul_rhs_scales_only
// CHECK-SAME: (%[[A:.*]]: tensor<?x64xbf16>, %[[W:.*]]: tensor<256x32xi8>, %[[S:.*]]: tensor<256x4xf8E4M3FN>)
// CHECK: fpx.scaled_matmul %[[A]] : tensor<?x64xbf16>, %[[W]] : tensor<256x32xi8> scales(%[[S]] : tensor<256x4xf8E4M3FN>)
// CHECK-SAME: -> tensor<?x256xf32>
func.func @scaled_matmul_rhs_scales_only(%a: tensor<?x64xbf16>, %w: tensor<256x32xi8>, %s: tensor<256x4xf8E4M3FN>) -> tensor<?x256xf32> {
  %c = "fpx.scaled_matmul"(%a, %w, %s) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 1, 0, 0>,
      rhs_format = #fpx.format<e2m1fn>, rhs_packing = #fpx.layout<fp4x2>,
      rhs_scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}>
    : (tensor<?x64xbf16>, tensor<256x32xi8>, tensor<256x4xf8E4M3FN>) -> tensor<?x256xf32>
  return %c : tensor<?x256xf32>
}

// -----

// CHECK-LABEL: func.func @scaled_matmul_no_scales
// CHECK: fpx.scaled_matmul %{{.*}} : tensor<4x64xbf16>, %{{.*}} : tensor<16x64xbf16> -> tensor<4x16xf32>
func.func @scaled_matmul_no_scales(%a: tensor<4x64xbf16>, %b: tensor<16x64xbf16>) -> tensor<4x16xf32> {
  %c = "fpx.scaled_matmul"(%a, %b) <{operandSegmentSizes = array<i32: 1, 0, 0, 1, 0, 0, 0>}>
    : (tensor<4x64xbf16>, tensor<16x64xbf16>) -> tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
