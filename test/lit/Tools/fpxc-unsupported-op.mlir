// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s
// RUN: not fpxc compile %s --target sm_100a --emit cubin -o %t.cubin 2>&1 | FileCheck %s
// RUN: not fpxc compile %s --target sm_90a -o %t.artifact 2>&1 | FileCheck %s

// An op with no kernel lowering is an error at the op, whatever is emitted,
// and nothing is written.
// CHECK: fpxc-unsupported-op.mlir:[[@LINE+2]]:8: error: 'fpx.unpack' op has no kernel lowering yet
func.func @f(%p: tensor<4x16xi8>) -> tensor<4x32xf4E2M1FN> {
  %q = fpx.unpack %p {layout = #fpx.layout<fp4x2>} : tensor<4x16xi8> -> tensor<4x32xf4E2M1FN>
  return %q : tensor<4x32xf4E2M1FN>
}
