// GPU test spec: fp8 e4m3 1x128 blockwise, f32 scales
func.func @q_fp8_1x128(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
