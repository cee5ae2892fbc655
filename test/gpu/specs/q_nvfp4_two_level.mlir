// GPU test spec: NVFP4 1x16 with the two-level scale: tensor amax on the
// device, e4m3 block scales relative to amax / (448 * 6), fp4x2 packed; also
// returns that global scale (stored by the cast).
func.func @q_nvfp4_two_level(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a, %g : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>, tensor<f32>
}
