// MXFP8 expert weights for a grouped GEMM (the MoE backward pass): each
// expert's (N, K) weight is scaled along N in 32x1 blocks and written
// transposed, as the column-major (K, N) operand the tensor cores read, with
// each expert's (K, N / 32) E8M0 scales in their own blocked 128x4 tiles
// (padded to 128 rows and 4 columns, the padding zero). One launch for all
// experts; casts of few tiles (small E) take a narrower tile.
func.func @mxfp8_experts(%w: tensor<?x?x?xbf16>)
    -> (tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %w {
      scaling = #fpx.scaling<block = [32, 1], rule = rceil, scale = f8E8M0FNU>, transposed,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU>
}
