// GPU test spec: MXFP8 e4m3 32x1 column blocks, transposed, floor, nonfinite = saturate
func.func @q_mxfp8_cols_sat(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {nonfinite = #fpx.nonfinite<saturate>,
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
