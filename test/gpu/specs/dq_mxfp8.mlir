// GPU test spec: MXFP8 e4m3 dequantize, 1x32 e8m0 scales, bf16 out.
func.func @dq_mxfp8(%q: tensor<?x?xf8E4M3FN>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
