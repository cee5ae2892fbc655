// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s
// RUN: not fpxc compile %s --target sm_100a --emit cubin -o %t.cubin 2>&1 | FileCheck %s
// RUN: not fpxc compile %s --target sm_90a -o %t.artifact 2>&1 | FileCheck %s

// An op with no kernel lowering is an error at the op, whatever is emitted,
// and nothing is written.
// CHECK: fpxc-unsupported-op.mlir:[[@LINE+2]]:8: error: 'fpx.dequantize' op has no kernel lowering yet
func.func @f(%q: tensor<4x32xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<4x32xbf16> {
  %r = fpx.dequantize %q, %s {scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xf8E4M3FN>, tensor<1x1xf32> -> tensor<4x32xbf16>
  return %r : tensor<4x32xbf16>
}
