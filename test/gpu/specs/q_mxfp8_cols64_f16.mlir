// GPU test spec: MXFP8 in 64x1 column blocks of f16 (two 32-row segments a
// block), transposed output.
func.func @q_mxfp8_cols64_f16(%x: tensor<?x?xf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
