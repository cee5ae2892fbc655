// GPU test spec: fp8 e4m3 blockwise 1x128 dequantize, f32 scales, bf16 out.
func.func @dq_fp8_1x128(%q: tensor<?x?xf8E4M3FN>, %s: tensor<?x?xf32>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>}
    : tensor<?x?xf8E4M3FN>, tensor<?x?xf32> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
