// GPU test spec: e3m2 with one E8M0 scale a row (floor), 4+2 packed.
func.func @q_e3m2_per_row_4p2(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x1xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, *], rule = floor, scale = f8E8M0FNU>,
      format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_planes>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x1xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x1xf8E8M0FNU>
}
