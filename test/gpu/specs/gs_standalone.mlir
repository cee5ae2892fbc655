// GPU test spec: fpx.global_scale of a given amax on its own (no NVFP4 cast
// reads that amax): a one-thread kernel.
func.func @gs_standalone(%a: tensor<f32>) -> tensor<f32> {
  %g = fpx.global_scale %a : tensor<f32>
  return %g : tensor<f32>
}
