// GPU test spec: MXFP6 e3m2, torchao #1810 interleaved 4+2, floor
func.func @q_mxfp6_e3m2_interleaved(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>, format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_interleaved>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
