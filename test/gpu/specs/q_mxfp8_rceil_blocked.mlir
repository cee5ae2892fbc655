// GPU test spec: MXFP8 e4m3, 1x32, rceil, scales swizzled to blocked 128x4
func.func @q_mxfp8_rceil_blocked(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %q, %b : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
