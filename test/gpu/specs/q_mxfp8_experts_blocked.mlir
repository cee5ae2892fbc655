// GPU test spec: MXFP8 32x1 blocks of (E, N, K) expert weights into per-expert
// column-major (E, K, N) output, each expert's (K, N / 32) scales in its own
// blocked 128x4 tiles (what a grouped GEMM reads for the weights).
func.func @q_mxfp8_experts_blocked(%w: tensor<?x?x?xbf16>) -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {
      scaling = #fpx.scaling<block = [32, 1], rule = rceil, scale = f8E8M0FNU>, transposed,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}
