// GPU test spec: 16x1 column blocks, transposed (column-major) output.
func.func @q_nvfp4_cols(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>, transposed, format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
