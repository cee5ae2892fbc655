// GPU test spec: NVFP4 dequantize with the global scale g given, scales in
// the blocked 128x4 layout, f32 out.
func.func @dq_nvfp4_g_blocked_f32(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x?xf32> {
  %x = fpx.dequantize %q, %s global_scale(%g : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xi8>, tensor<?x?xf8E4M3FN> -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
