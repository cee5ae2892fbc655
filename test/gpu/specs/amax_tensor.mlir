// GPU test spec: the tensor amax alone (the first pass of every per-tensor
// cast), reduced by a grid-stride loop over the warps' 32-vector chunks.
func.func @amax_tensor(%x: tensor<?x?xbf16>) -> tensor<f32> {
  %a = fpx.amax %x : tensor<?x?xbf16> -> tensor<f32>
  return %a : tensor<f32>
}
