// fp8 e4m3 blockwise 1x128 (DeepSeek-V3 activations): f32 scale per block of
// 128 along rows, s = amax / 448; scales row-major [M, K/128].
func.func @fp8_1x128(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 128], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf32>
}
