// GPU test spec: fp8 e4m3 per-row dequantize with f16 scales, f32 out.
func.func @dq_fp8_rows_f16scale(%q: tensor<?x?xf8E4M3FN>, %s: tensor<?x1xf16>) -> tensor<?x?xf32> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f16>}
    : tensor<?x?xf8E4M3FN>, tensor<?x1xf16> -> tensor<?x?xf32>
  return %x : tensor<?x?xf32>
}
