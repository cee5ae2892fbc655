// GPU test spec: NVFP4 1x16, one level (g = 1)
func.func @q_nvfp4_single(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>, format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
