// fp8 e4m3 per tensor under delayed scaling (Transformer Engine's fp8
// recipe): the cast scales by an amax kept from an earlier step
// (s = prev / 448) and returns this input's amax for the next step. fpxc
// fuses the amax into the cast: one kernel, one read of x (the amax-first
// form of fp8_per_tensor.mlir reads x twice).
func.func @fp8_delayed_scaling(%x: tensor<?x?xbf16>, %prev: tensor<f32>)
    -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  %next = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  return %q, %s, %next : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>
}
