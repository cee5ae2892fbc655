// MXFP8 e4m3 rows, rceil, scales written straight into the blocked 128x4
// layout that block-scaled tensor cores read ([cdiv(M,128)*128, cdiv(K/32,4)*4]).
func.func @mxfp8_e4m3_rceil_blocked(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
      scale_layout = #fpx.layout<blocked_128x4>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
