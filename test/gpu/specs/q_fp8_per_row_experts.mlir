// GPU test spec: fp8 e4m3 per row of each matrix of an (E, M, K) batch:
// scales (E, M, 1).
func.func @q_fp8_per_row_experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x1xf32>) {
  %q, %s = fpx.quantize %w {scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x1xf32>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x1xf32>
}
