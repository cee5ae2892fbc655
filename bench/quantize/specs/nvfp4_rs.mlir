// NVFP4 as nvfp4.mlir with stochastic rounding of the elements: random bits
// from Philox seeded by the i64 argument (same seed, same bits).
func.func @nvfp4_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
