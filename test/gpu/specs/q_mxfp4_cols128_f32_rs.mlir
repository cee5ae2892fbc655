// GPU test spec: e2m1 in 128x1 column blocks of f32 with E8M0 scales and
// stochastic rounding (four 32-row segments a block, each drawing the random
// bits of its own codes), packed fp4x2, transposed output.
func.func @q_mxfp4_cols128_f32_rs(%x: tensor<?x?xf32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {
      scaling = #fpx.scaling<block = [128, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, rounding = #fpx.rounding<rs>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
