// GPU test spec: ao_fp8_tensor.mlir on f32 inputs. fp8 e4m3 per tensor from a given amax (an
// earlier step's), returning the amax of this input too: the cast reduces
// it as it reads x (fpx.amax fused, no second read).
func.func @ao_fp8_tensor_f32(%x: tensor<?x?xf32>, %prev: tensor<f32>)
    -> (tensor<?x?xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>) {
  %q, %s = fpx.quantize %x amax(%prev : tensor<f32>) {
      scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>}
    : tensor<?x?xf32> -> tensor<?x?xf8E4M3FN>, tensor<1x1xf32>
  %a = fpx.amax %x : tensor<?x?xf32> -> tensor<f32>
  return %q, %s, %a : tensor<?x?xf8E4M3FN>, tensor<1x1xf32>, tensor<f32>
}
