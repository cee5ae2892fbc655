// GPU test spec: 8x1 column blocks of byte codes (an 8-byte slot a block;
// rows of 8 mod 16 end half-way through a staged 16-byte unit).
func.func @q_mxfp8_cols8(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [8, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
