// GPU test spec: 32x1 column blocks, transposed (column-major) output.
func.func @q_mxfp8_cols_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed, rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
