// GPU test spec: MXFP6 e2m3 dequantize from 4+2 split packing, bf16 out.
func.func @dq_mxfp6_e2m3_4p2(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_planes>,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
