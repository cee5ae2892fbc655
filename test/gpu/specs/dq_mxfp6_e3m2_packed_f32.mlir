// GPU test spec: MXFP6 e3m2 dequantize from contiguous 24-bit packing, f32 out.
func.func @dq_mxfp6_e3m2_packed_f32(%q: tensor<?x?xi8>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf32> {
  %x = fpx.dequantize %q, %s {format = #fpx.format<e3m2fn>, packing = #fpx.layout<fp6_packed>,
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
