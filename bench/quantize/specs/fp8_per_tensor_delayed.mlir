// Delayed scaling (Transformer Engine's recipe for fp8 per tensor): the cast
// scales by a given amax (kept from an earlier step) and returns the amax of
// this input for the next one. fpxc fuses the amax into the cast: x is read
// once (fp8_per_tensor, which needs this input's amax first, reads it twice).
func.func @fp8_per_tensor_delayed(%x: tensor<?x?xbf16>, %prev: tensor<f32>)
    -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  return %q, %s, %a : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>
}
