// GPU test spec: MXFP8 e5m2 dequantize (inf and NaN codes), f32 out.
func.func @dq_mxfp8_e5m2_f32(%q: tensor<?x?xf8E5M2>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf32> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 32], rule = even, scale = f8E8M0FNU>}
    : tensor<?x?xf8E5M2>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
