// NVFP4 activations and back. Quantize: the tensor amax (one pass over x),
// then 1x16 blocks with e4m3 scales relative to the global scale
// g = amax / (448 * 6), codes packed two per byte; the cast kernel also
// stores g (fpx.global_scale fused into it), which a GEMM of two NVFP4
// operands takes as alpha = g_a * g_b. Dequantize: codes times block scale
// times g, with g read on the device.
func.func @nvfp4_quantize(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %g : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}

func.func @nvfp4_dequantize(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x?xbf16> {
  %y = fpx.dequantize %q, %s global_scale(%g : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xi8>, tensor<?x?xf8E4M3FN> -> tensor<?x?xbf16>
  return %y : tensor<?x?xbf16>
}
