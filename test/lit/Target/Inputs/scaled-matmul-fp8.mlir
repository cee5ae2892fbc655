// fp8 x fp8 with f32 per-tensor (e4m3 x e5m2) and per-row (with an f32 bias,
// f32 out) scales: the sm_100a tcgen05 kind::f8f6f4 forms
// (ptx-scaled-matmul-blackwell.mlir compiles it).
func.func @tw(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<1x1xf32>, %b: tensor<?x?xf8E5M2>, %sb: tensor<1x1xf32>) -> tensor<?x?xbf16> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<1x1xf32>), %b : tensor<?x?xf8E5M2> scales(%sb : tensor<1x1xf32>) {
      lhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [*, *], rule = amax, scale = f32>} -> tensor<?x?xbf16>
  return %c : tensor<?x?xbf16>
}
func.func @rw(%a: tensor<?x?xf8E4M3FN>, %sa: tensor<?x1xf32>, %b: tensor<?x?xf8E4M3FN>, %sb: tensor<?x1xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c = fpx.scaled_matmul %a : tensor<?x?xf8E4M3FN> scales(%sa : tensor<?x1xf32>), %b : tensor<?x?xf8E4M3FN> scales(%sb : tensor<?x1xf32>) bias(%bias : tensor<?xf32>) {
      lhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>,
      rhs_scaling = #fpx.scaling<block = [1, *], rule = amax, scale = f32>} -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}
