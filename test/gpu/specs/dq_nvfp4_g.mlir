// GPU test spec: NVFP4 dequantize with the global scale g given (e.g. the g
// a quantize returned): e4m3 block scales times g, bf16 out.
func.func @dq_nvfp4_g(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E4M3FN>, %g: tensor<f32>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s global_scale(%g : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xi8>, tensor<?x?xf8E4M3FN> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
