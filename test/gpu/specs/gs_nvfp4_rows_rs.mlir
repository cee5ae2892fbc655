// GPU test spec: NVFP4 1x16 with a given tensor amax (delayed scaling) and
// stochastic rounding, returning the global scale the cast stores (fused).
func.func @gs_nvfp4_rows_rs(%x: tensor<?x?xbf16>, %a: tensor<f32>, %seed: i64)
    -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %g = fpx.global_scale %a : tensor<f32>
  return %q, %s, %g : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
