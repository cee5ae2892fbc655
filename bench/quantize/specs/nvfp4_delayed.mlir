// NVFP4 under delayed scaling: the global scale from a given amax (an earlier
// step's), and the amax of this input returned for the next step, reduced
// by the cast as it reads x (one read; nvfp4 reads x twice).
func.func @nvfp4_delayed(%x: tensor<?x?xbf16>, %prev: tensor<f32>)
    -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
