// RUN: not fpxc compile %s --target sm_90a --emit ptx -o - 2>&1 | FileCheck %s

// An unknown format in a spec is a located parse error.
// CHECK: fpxc-unknown-format.mlir:[[@LINE+2]]:49: error: unknown format 'e9m9' (see `fpxc formats`)
func.func @f(%x: tensor<4x32xbf16>) -> (tensor<4x32xi8>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e9m9>,
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<4x32xbf16> -> tensor<4x32xi8>, tensor<1x1xf32>
  return %q, %s : tensor<4x32xi8>, tensor<1x1xf32>
}
