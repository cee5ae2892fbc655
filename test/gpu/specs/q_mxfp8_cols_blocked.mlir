// GPU test spec: 32x1 column blocks, transposed (column-major) output, the
// (K, M / 32) scales in the blocked 128x4 layout.
func.func @q_mxfp8_cols_blocked(%x: tensor<?x?xbf16>) -> (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [32, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E8M0FNU>
}
