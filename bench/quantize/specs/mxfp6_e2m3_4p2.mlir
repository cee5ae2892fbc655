// MXFP6 e2m3, 1x32 row blocks, floor rule, codes in fpx's fp6 planes layout: per row
// K/4 bytes of 2-bit high parts, then K/2 bytes of 4-bit low parts.
func.func @mxfp6_e2m3_4p2(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
