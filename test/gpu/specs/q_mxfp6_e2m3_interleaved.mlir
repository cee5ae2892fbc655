// GPU test spec: MXFP6 e2m3, torchao #1810 interleaved 4+2, rceil
func.func @q_mxfp6_e2m3_interleaved(%x: tensor<?x?xbf16>) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x {
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>, format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
