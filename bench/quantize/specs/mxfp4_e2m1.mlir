// MXFP4 e2m1, 1x32 row blocks, floor rule, two codes per byte (fp4x2:
// element 2k in the low nibble of byte k).
func.func @mxfp4_e2m1(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
