// GPU test spec: e2m1 in 64x1 column blocks of f32 with stochastic rounding,
// packed fp4x2, transposed output, the scales in the blocked 128x4 layout
// (two blocks of a column a tile: stored byte by byte).
func.func @q_mxfp4_cols64_blocked_rs(%x: tensor<?x?xf32>, %seed: i64) -> (tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>) {
  %q, %s = fpx.quantize %x seed(%seed) {
      scaling = #fpx.scaling<block = [64, 1], rule = floor, scale = f8E8M0FNU>, transposed,
      format = #fpx.format<e2m1fn>, packing = #fpx.layout<fp4x2>, rounding = #fpx.rounding<rs>,
      scale_layout = #fpx.layout<blocked_128x4>}
    : tensor<?x?xf32> -> tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
  return %q, %s : tensor<?x?xi8>, tensor<?x?xf8E8M0FNU>
}
