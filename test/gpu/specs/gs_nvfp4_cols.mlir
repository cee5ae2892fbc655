// GPU test spec: NVFP4 16x1 column blocks (transposed output) with a given
// tensor amax, returning the global scale the cast stores (fused).
func.func @gs_nvfp4_cols(%x: tensor<?x?xbf16>, %a: tensor<f32>)
    -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>) {
  %g = fpx.global_scale %a : tensor<f32>
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, transposed,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s, %g : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>, tensor<f32>
}
