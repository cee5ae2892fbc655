// GPU test spec: fp8 e4m3 dequantize with one f32 scale per tensor, bf16 out.
func.func @dq_fp8_per_tensor(%q: tensor<?x?xf8E4M3FN>, %s: tensor<1x1xf32>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xf8E4M3FN>, tensor<1x1xf32> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
