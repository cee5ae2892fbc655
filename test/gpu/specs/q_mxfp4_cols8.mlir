// GPU test spec: 8x1 column blocks of fp4x2 codes (4 bytes a block: two
// blocks share a staged 8-byte slot, and rows of 8 or 24 mod 32 end a
// quarter into a staged 16-byte unit).
func.func @q_mxfp4_cols8(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
