// GPU test spec: fpx.global_scale of one amax per matrix (rank 1): one
// thread a value.
func.func @gs_standalone_many(%a: tensor<?xf32>) -> tensor<?xf32> {
  %g = fpx.global_scale %a : tensor<?xf32>
  return %g : tensor<?xf32>
}
