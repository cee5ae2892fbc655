// GPU test spec: fp8 e4m3 128x128 blocks of (E, M, K) f32 expert weights,
// f32 scales (E, M/128, K/128), row-major per-expert output.
func.func @q2d_fp8_128x128_e3d_f32(%w: tensor<?x?x?xf32>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf32>) {
  %q, %s = fpx.quantize %w {
      scaling = #fpx.scaling<block = [128, 128], rule = amax, scale = f32>}
    : tensor<?x?x?xf32> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf32>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf32>
}
