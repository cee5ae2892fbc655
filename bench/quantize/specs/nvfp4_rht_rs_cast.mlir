// The cast pass of nvfp4_rht_rs.mlir alone: the tensor amax of the
// transformed input is an argument (e.g. kept from the producer of x, as
// delayed-scaling recipes do), so the input is read once.
func.func @nvfp4_rht_rs_cast(%x: tensor<?x?xbf16>, %a: tensor<f32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E4M3FN>) {
  %h = fpx.hadamard %x {size = 16, seed = 5} : tensor<?x?xbf16>
  %q, %s = fpx.quantize %h amax(%a : tensor<f32>) seed(%seed) {
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>,
      scaling = #fpx.scaling<block = [1, 16], rule = amax, scale = f8E4M3FN>,
      rounding = #fpx.rounding<rs>}
    : tensor<?x?xbf16> -> tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E4M3FN>
}
