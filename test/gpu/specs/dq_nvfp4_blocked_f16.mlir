// GPU test spec: NVFP4 dequantize, two-level, scales in the blocked 128x4
// layout, f16 out.
func.func @dq_nvfp4_blocked_f16(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>, %a: tensor<f32>) -> tensor<?x?xf16> {
  %x = fpx.dequantize %q, %s amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xi8>, tensor<?x?xf8E4M3FN> -> tensor<?x?xf16>
  return %x : tensor<?x?xf16>
}
