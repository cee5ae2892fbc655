// GPU test spec: MXFP6 e2m3 codes one per byte (f6E2M3FN), f16 out.
func.func @dq_mxfp6_e2m3_bytes_f16(%q: tensor<?x?xf6E2M3FN>, %s: tensor<?x?xf8E8M0FNU>) -> tensor<?x?xf16> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, 32], rule = floor, scale = f8E8M0FNU>}
    : tensor<?x?xf6E2M3FN>, tensor<?x?xf8E8M0FNU> -> tensor<?x?xf16>
  return %x : tensor<?x?xf16>
}
