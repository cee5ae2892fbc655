// fp8 e4m3 with one dynamic per-tensor scale s = amax / 448 (an amax kernel,
// then the cast; the amax stays on the GPU).
func.func @fp8_per_tensor(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
}
