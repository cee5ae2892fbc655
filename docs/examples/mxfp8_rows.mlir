// MXFP8 (e4m3, 1x32 blocks along rows, rceil scale rule), scales in the
// blocked 128x4 layout that block-scaled tensor cores read.
func.func @mxfp8_rows(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  %b = fpx.swizzle_scales %s {layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf8E8M0FNU> -> tensor<?x?xf8E8M0FNU>
  return %q, %b : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
