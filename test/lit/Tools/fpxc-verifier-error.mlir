// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s

// A verifier error in a spec is located at the op.
// CHECK: fpxc-verifier-error.mlir:[[@LINE+2]]:12: error: 'fpx.quantize' op stochastic rounding (rs) needs a 'seed' operand
func.func @f(%x: tensor<4x32xbf16>) -> (tensor<4x32xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {rounding = #fpx.rounding<rs>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<4x32xf8E4M3FN>, tensor<1x1xf32>
}
