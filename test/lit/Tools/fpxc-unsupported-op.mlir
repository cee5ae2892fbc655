// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s
// RUN: not fpxc compile %s --target sm_100a --emit cubin -o %t.cubin 2>&1 | FileCheck %s
// RUN: not fpxc compile %s --target sm_90a -o %t.artifact 2>&1 | FileCheck %s

// An op with no kernel lowering is an error at the op, whatever is emitted,
// and nothing is written.
// CHECK: fpxc-unsupported-op.mlir:[[@LINE+2]]:8: error: 'fpx.scaled_matmul' op has no kernel lowering for a weight that is not packed as mma_tiles
func.func @f(%a: tensor<4x32xbf16>, %b: tensor<16x32xbf16>) -> tensor<4x16xbf16> {
  %y = fpx.scaled_matmul %a : tensor<4x32xbf16>, %b : tensor<16x32xbf16> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}
