// GPU test spec: MXFP8 32x1 blocks of (E, N, K) expert weights into per-expert
// column-major (E, K, N) output (the seed 003 case).
func.func @q_mxfp8_experts(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {
      scaling = #fpx.scaling<block = [32, 1], rule = rceil, scale = f8E8M0FNU>, transposed}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}
