// GPU test spec: e2m1 with one e4m3 scale a row relative to NVFP4's global
// scale (tensor amax on the device, g = amax / (448 * 6)), fp4x2 packed;
// also returns g (stored by the per-row cast).
func.func @q_e2m1_per_row_two_level(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x1xf8E4M3FN>, tensor<f32>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x1xf8E4M3FN>
  return %q, %s, %a, %g : tensor<?x?xi8>, tensor<?x1xf8E4M3FN>, tensor<f32>, tensor<f32>
}
