// The cast pass of nvfp4_rs.mlir alone: the tensor amax is an argument
// (delayed scaling), so the input is read once; stochastic rounding with
// random bits from Philox seeded by the i64 argument.
func.func @nvfp4_rs_cast(%x: tensor<?x?xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %q, %s = fpx.quantize %x amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
