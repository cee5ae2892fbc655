// GPU test spec: MXFP4 e2m1 dequantize from fp4x2 bytes, bf16 out.
func.func @dq_mxfp4(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xbf16> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xbf16>
  return %x : tensor<?x?xbf16>
}
