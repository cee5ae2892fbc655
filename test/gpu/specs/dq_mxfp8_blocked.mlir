// GPU test spec: MXFP8 e4m3 dequantize with scales in the blocked 128x4
// layout (padded to 128 rows and 4 columns), bf16 out.
func.func @dq_mxfp8_blocked(%q: tensor<?x?xf8E4M3FN>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {scale_layout = #fpx.layout<blocked_128x4>,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
