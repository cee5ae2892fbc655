// GPU test spec: fp8 e4m3 blockwise 128x128 (DeepSeek-V3 weights), one f32
// scale s = amax / 448 per block, row-major [M/128, K/128].
func.func @q2d_fp8_128x128(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
