// GPU test spec: delayed scaling with stochastic rounding: NVFP4 1x16 from a
// given tensor amax, returning the amax of this input too (fused).
func.func @ao_nvfp4_rs(%x: tensor<?x?xbf16>, %prev: tensor<f32>, %seed: i64)
    -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
