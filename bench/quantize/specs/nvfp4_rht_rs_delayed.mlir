// Hadamard 16 + NVFP4 + rs under delayed scaling: the cast scales by a given
// amax of the transform and returns the amax of this input's transform for
// the next step (fused: one read; nvfp4_rht_rs reads x twice).
func.func @nvfp4_rht_rs_delayed(%x: tensor<?x?xbf16>, %prev: tensor<f32>, %seed: i64)
    -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h amax(%prev : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %a = fpx.amax %h : tensor<?x?xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
