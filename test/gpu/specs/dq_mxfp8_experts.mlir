// GPU test spec: MXFP8 dequantize of 3-D expert weights (E, N, K), 1x32
// blocks along K, bf16 out.
func.func @dq_mxfp8_experts(%q: tensor<?x?x?xf8E4M3FN>, %s: tensor<?x?x?xf8E8M0FNU>) -> tensor<?x?x?xbf16> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?x?xf8E4M3FN>, tensor<?x?x?xf8E8M0FNU> -> tensor<?x?x?xbf16>
  return %x : tensor<?x?x?xbf16>
}
