// GPU test spec: NVFP4 (amax of the transform, two-level scales) after a
// 64-point random Hadamard transform, stochastic rounding: the cross-lane
// butterfly of the thread-owns-32-elements cast with 16-element blocks.
func.func @q_nvfp4_rht64_rs(%x: tensor<?x?xbf16>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %h = fpx.hadamard %x {size = 64, seed = 9} : tensor<?x?xbf16>
  %a = fpx.amax %h : tensor<?x?xbf16> -> tensor<f32>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
