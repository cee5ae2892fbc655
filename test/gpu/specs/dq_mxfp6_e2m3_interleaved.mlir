// GPU test spec: MXFP6 e2m3 fused unpack-dequantize from torchao #1810's
// interleaved 4+2, bf16 out.
func.func @dq_mxfp6_e2m3_interleaved(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e2m3fn>, packing = #fpx.layout<fp6_interleaved>,
      scaling = #fpx.scaling<block = [1, 32], rule = rceil, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
