// GPU test spec: NVFP4 16x1 column blocks (single level), packed fp4x2,
// transposed output, the e4m3 scales in the blocked 128x4 layout.
func.func @q_nvfp4_cols_blocked(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
