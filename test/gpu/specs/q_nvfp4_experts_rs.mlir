// GPU test spec: NVFP4 16x1 blocks of (E, N, K) expert weights into
// per-expert column-major (E, K, N/2) fp4x2 codes, stochastic rounding, the
// tensor amax computed first.
func.func @q_nvfp4_experts_rs(%w: tensor<?x?x?xbf16>, %seed: i64)
    -> (tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %w : tensor<?x?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %w amax(%a : tensor<f32>) seed(%seed) {
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, rounding = #fpx.rounding<rs>}
    : tensor<?x?x?xbf16> -> tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?x?xi8>, tensor<?x?x?xf8E4M3FN>, tensor<f32>
}
