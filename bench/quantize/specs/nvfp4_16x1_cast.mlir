// The cast pass of nvfp4_16x1.mlir alone: the tensor amax is an argument, so
// the input is read once.
func.func @nvfp4_16x1_cast(%x: tensor<?x?xbf16>, %a: tensor<f32>) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, transposed,
      scaling = #fpx.scaling<block = [16, 1], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rn>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
