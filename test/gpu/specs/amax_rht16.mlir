// GPU test spec: the amax of the 16-point random Hadamard transform (the
// first pass of the NVFP4 gradient recipe), the transform fused into the
// reduction: lanes exchange values, so every lane must see its block's.
func.func @amax_rht16(%x: tensor<?x?xbf16>) -> tensor<f32> {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %a = fpx.amax %h : tensor<?x?xbf16> -> tensor<f32>
  return %a : tensor<f32>
}
