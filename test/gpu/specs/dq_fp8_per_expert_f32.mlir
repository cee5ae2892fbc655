// GPU test spec: fp8 e4m3 dequantize of 3-D weights with one f32 scale per
// matrix (block [*, *] per expert: scales (E, 1, 1)), f32 out.
func.func @dq_fp8_per_expert_f32(%q: tensor<?x?x?xf8E4M3FN>, %s: tensor<?x1x1xf32>) -> tensor<?x?x?xf32> {
  %x = fpx.dequantize %q, %s {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?x?xf8E4M3FN>, tensor<?x1x1xf32> -> tensor<?x?x?xf32>
  return %x : tensor<?x?x?xf32>
}
